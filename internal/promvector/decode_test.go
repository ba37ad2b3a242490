package promvector

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/prometheus/common/model"
)

type sample struct {
	labels []string
	value  float64
}

func decodeAll(body string, wanted ...string) ([]sample, error) {
	var out []sample
	err := Decode([]byte(body), wanted, func(labels []string, v float64) {
		out = append(out, sample{labels, v})
	})
	return out, err
}

func sameValue(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

// TestDecodeReadsAnswers reads answers as Prometheus writes them and as it
// could: escapes and non-ASCII in label values, a surrogate pair, special
// values, keys in another order, members the decoder does not know, and
// white space.
func TestDecodeReadsAnswers(t *testing.T) {
	body := `{"status":"success","data":{"resultType":"vector","result":[
		{"metric":{"__name__":"x","namespace":"shop","pod":"web-1"},"value":[1700000000.5,"0.25"]},
		{"metric":{"pod":"a\"b\\c\/d\n\u00e9\ud83d\ude00","namespace":"ns"},"value":[1700000000,"NaN"]},
		{ "value" : [ 1e9 , "+Inf" ] , "metric" : { "namespace" : "é" } },
		{"metric":{},"value":[0,"-1.5e-3"],"extra":{"a":[1,true,null,"s"]}}
	]},"warnings":["w"],"infos":[]}`
	got, err := decodeAll(body, "namespace", "pod")
	if err != nil {
		t.Fatal(err)
	}
	want := []sample{
		{[]string{"shop", "web-1"}, 0.25},
		{[]string{"ns", "a\"b\\c/d\né😀"}, math.NaN()},
		{[]string{"é", ""}, math.Inf(1)},
		{[]string{"", ""}, -1.5e-3},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d samples, want %d: %v", len(got), len(want), got)
	}
	for i := range want {
		if !slices.Equal(got[i].labels, want[i].labels) || !sameValue(got[i].value, want[i].value) {
			t.Errorf("sample %d = %q %v; want %q %v", i, got[i].labels, got[i].value, want[i].labels, want[i].value)
		}
	}
	if got, err := decodeAll(`{"status":"success","data":{"resultType":"vector","result":[]}}`, "pod"); err != nil || len(got) != 0 {
		t.Errorf("empty vector: %v, %v", got, err)
	}
}

// TestDecodeRefusesBadAnswers checks that every answer that is not a
// well-formed instant vector is an error that says what is wrong.
func TestDecodeRefusesBadAnswers(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{`{"status":"error","errorType":"bad_data","error":"parse error at char 4"}`, "bad_data: parse error at char 4"},
		{`{"status":"success","data":{"resultType":"matrix","result":[]}}`, "a matrix, not an instant vector"},
		{`{"status":"success","data":{"resultType":"scalar","result":[1,"2"]}}`, "a scalar, not an instant vector"},
		{`{"status":"success","data":{"result":[]}}`, "does not say its result type"},
		{`{"status":"success","data":{"resultType":"vector"}}`, "has no result"},
		{`{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"histogram":[1,{}]}]}}`, "native histogram"},
		{`{"status":"success","data":{"resultType":"vector","result":[{"metric":{}}]}}`, "without a value"},
		{`{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"x"]}]}}`, `"x" is not a number`},
		{`{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"2",3]}]}}`, "two elements"},
		{`{"status":"success","data":{"resultType":"vector","result":[{"metric":{"a":1},"value":[1,"2"]}]}}`, "malformed answer"},
		{`{"status":"success","data":{"resultType":"vector","result":[]}} x`, "data after the answer"},
		{`{"status":"success","data":{"resultType":"vector","result":[`, "malformed answer"},
		{`<html>Bad Gateway</html>`, "malformed answer at byte 0"},
		{`{"status":"success","data":{"resultType":"vector","result":[{"metric":{"a":"\q"},"value":[1,"2"]}]}}`, `bad escape \q`},
		{`{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[01,"2"]}]}}`, "want ','"},
	} {
		_, err := decodeAll(c.body, "a")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v; want one saying %q", c.body, err, c.want)
		}
	}
}

// reference decodes an answer the way the general client does:
// encoding/json into the answer's envelope, and the result into
// prometheus/common's model.Vector.
func reference(body []byte, wanted []string) ([]sample, bool) {
	var answer struct {
		Status string `json:"status"`
		Data   struct {
			ResultType string          `json:"resultType"`
			Result     json.RawMessage `json:"result"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &answer); err != nil || answer.Status != "success" || answer.Data.ResultType != "vector" {
		return nil, false
	}
	var v model.Vector
	if err := json.Unmarshal(answer.Data.Result, &v); err != nil {
		return nil, false
	}
	out := make([]sample, len(v))
	for i, s := range v {
		if s.Histogram != nil {
			return nil, false
		}
		labels := make([]string, len(wanted))
		for k, w := range wanted {
			labels[k] = string(s.Metric[model.LabelName(w)])
		}
		out[i] = sample{labels, float64(s.Value)}
	}
	return out, true
}

// FuzzDecode feeds arbitrary answers to Decode: it must never panic, and
// whatever it reads from valid JSON must be what the general client reads
// (the same samples, labels and values).
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"status":"success","data":{"resultType":"vector","result":[{"metric":{"a":"x","b":"y\u00e9"},"value":[1.5,"2"]},{"metric":{"a":"z"},"value":[3,"NaN"]}]}}`))
	f.Add([]byte(`{"status":"error","errorType":"timeout","error":"query timed out"}`))
	f.Add([]byte(`{"data":{"result":[{"value":[0,"1e5"],"metric":{"b":"\ud83d\ude00"}}],"resultType":"vector"},"status":"success"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		wanted := []string{"a", "b"}
		got, err := decodeAll(string(body), wanted...)
		if !json.Valid(body) || !utf8.Valid(body) {
			return
		}
		want, ok := reference(body, wanted)
		if err != nil {
			if ok && !stricter(err) {
				t.Fatalf("Decode: %v; the general client reads %v: %s", err, want, body)
			}
			return
		}
		if !ok {
			t.Fatalf("Decode read %v from an answer the general client refuses: %s", got, body)
		}
		if len(got) != len(want) {
			t.Fatalf("%d samples, the client reads %d: %s", len(got), len(want), body)
		}
		for i := range want {
			if !slices.Equal(got[i].labels, want[i].labels) || !sameValue(got[i].value, want[i].value) {
				t.Fatalf("sample %d = %q %v, the client reads %q %v: %s", i, got[i].labels, got[i].value, want[i].labels, want[i].value, body)
			}
		}
	})
}

// stricter reports the answers Decode refuses on purpose where the general
// client reads something: a sample without a value (the client reads 0 at
// time 0), a value array of another length or shape, or two results (the
// client keeps the last).
func stricter(err error) bool {
	for _, why := range []string{"without a value", "two elements", "want ','", "want a number", "want '['", "want '\"'", "a second result"} {
		if strings.Contains(err.Error(), why) {
			return true
		}
	}
	return false
}
