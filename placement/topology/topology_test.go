package topology

import (
	"reflect"
	"strings"
	"testing"

	"github.com/artt-dev/artt/graph"
)

func TestRoundTrip(t *testing.T) {
	in := Topology{
		Delays: []graph.Delay{{From: "n2", To: "n1", Ms: 0.35}, {From: "n1", To: "n2", Ms: 12}},
		Calls:  []Call{{From: "shop/web", To: "shop/api"}},
	}
	data := in.Data()
	if data[DelaysKey] != "n1 n2 12\nn2 n1 0.35" || data[CallsKey] != "shop/web shop/api" {
		t.Errorf("data %q", data)
	}
	out, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	want := Topology{Delays: []graph.Delay{{From: "n1", To: "n2", Ms: 12}, {From: "n2", To: "n1", Ms: 0.35}}, Calls: in.Calls}
	if !reflect.DeepEqual(out, want) {
		t.Errorf("parsed %+v, want %+v", out, want)
	}
}

func TestParseNamesEveryBadLine(t *testing.T) {
	top, err := Parse(map[string]string{
		DelaysKey: "n1 n2 1\nn1 n3\n\nn2 n3 -4\nn3 n1 NaN",
		CallsKey:  "shop/web shop/api\nweb api",
	})
	for _, want := range []string{"delays line 2 = n1 n3", "delays line 4 = -4", "delays line 5 = NaN", "calls line 2 = web api"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not name %s", err, want)
		}
	}
	if len(top.Delays) != 1 || len(top.Calls) != 1 {
		t.Errorf("good lines beside bad ones: %+v", top)
	}
	if top, err := Parse(nil); err != nil || len(top.Delays)+len(top.Calls) != 0 {
		t.Errorf("empty data: %+v, %v", top, err)
	}
}
