package scaler

import (
	"errors"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/artt-dev/artt/scaler/metric"
)

// docs/scaler.md's trigger metadata table documents exactly the keys the
// parser reads: a key added to the parser without a row, or a row left
// for a key the parser no longer reads, fails here.
func TestDocsDocumentEveryMetadataKey(t *testing.T) {
	doc, err := os.ReadFile("../docs/scaler.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(doc), "## Trigger metadata\n")
	if !ok {
		t.Fatal("docs/scaler.md has no \"## Trigger metadata\" section")
	}
	table, _, _ = strings.Cut(strings.TrimPrefix(table, "\n"), "\n\n")
	row := regexp.MustCompile("(?m)^\\| `([A-Za-z]+)` \\|")
	var documented []string
	for _, m := range row.FindAllStringSubmatch(table, -1) {
		documented = append(documented, m[1])
	}
	if len(documented) == 0 {
		t.Fatal("no rows found in docs/scaler.md's trigger metadata table")
	}
	read := readKeys()
	if len(read) < 20 {
		t.Fatalf("the parser read only %d keys from empty metadata: %v", len(read), read)
	}
	for _, k := range read {
		if !slices.Contains(documented, k) {
			t.Errorf("metadata key %q is read by the parser but has no row in docs/scaler.md's table", k)
		}
	}
	for _, k := range documented {
		if !slices.Contains(read, k) && !slices.Contains(metric.KEDAKeys, k) {
			t.Errorf("docs/scaler.md's table documents %q, which the parser does not read", k)
		}
	}
}

// readKeys are the keys ParseMetadata reads from empty metadata: every key
// a trigger may set besides KEDA's own.
func readKeys() []string {
	r := metric.NewReader(map[string]string{})
	spec(r, "default", "web", "http://prometheus:9090")
	return r.Read()
}

// The keys the adapter reads beside the metric's settings are the
// measurement keys the lab passes over: a new one read here and not listed
// there would be refused by the lab as unknown.
func TestMeasurementKeysAreTheAdaptersOwn(t *testing.T) {
	settings := metric.NewReader(map[string]string{})
	settings.Settings()
	var own []string
	for _, k := range readKeys() {
		if !slices.Contains(settings.Read(), k) {
			own = append(own, k)
		}
	}
	if want := slices.Sorted(slices.Values(metric.MeasurementKeys)); !slices.Equal(own, want) {
		t.Errorf("the adapter reads %v beside the settings, metric.MeasurementKeys lists %v", own, want)
	}
}

// A key the parser does not read is refused first, by name; a query key is
// read even when a bad workload keeps the queries from being rendered.
func TestUnknownKeysAreTheOnesNotRead(t *testing.T) {
	_, err := ParseMetadata("shop", "web", map[string]string{"workload": "web", "minThresold": "50"}, "http://prometheus:9090")
	var me *metric.MetadataError
	if !errors.As(err, &me) || me.Key != "minThresold" || !strings.Contains(me.Reason, "unknown key") {
		t.Errorf("a misspelt key: %v, want it refused first as unknown", err)
	}
	_, err = ParseMetadata("shop", "web", map[string]string{"workload": "Bad_Name", "cpuUsageQuery": "sum(x)"}, "http://prometheus:9090")
	if err == nil || !strings.Contains(err.Error(), `"workload"`) {
		t.Errorf("a bad workload: %v, want it named", err)
	}
	if err != nil && strings.Contains(err.Error(), `"cpuUsageQuery" = "sum(x)": unknown key`) {
		t.Errorf("cpuUsageQuery called unknown because the workload was bad: %v", err)
	}
}
