package docs_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/artt-dev/artt/loadtest/scenario"
)

// The lists of names docs/scenarios.md gives in its annotated file are the
// ones the scenario validator accepts, no more and no fewer.
func TestScenarioDocsListTheNamesTheValidatorAccepts(t *testing.T) {
	text, err := os.ReadFile("scenarios.md")
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string][]string{
		"routing":     scenario.RoutingPolicies,
		"autoscaling": scenario.AutoscalingPolicies,
		"placement":   scenario.PlacementPolicies,
		"lbPolicy":    scenario.LBPolicies,
	} {
		got := listedNames(string(text), key)
		if !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))) {
			t.Errorf("docs/scenarios.md lists %s: %v; the validator accepts %v", key, got, want)
		}
	}
}

// listedNames are the names in the comment beside "    key: …" in the
// annotated scenario and the comment lines that continue it: the first word
// of each "|"-separated part, after any "label:" before it.
func listedNames(text, key string) []string {
	lines := strings.Split(text, "\n")
	start := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "    "+key+": ") })
	if start < 0 {
		return nil
	}
	_, comment, _ := strings.Cut(lines[start], "# ")
	for _, l := range lines[start+1:] {
		rest, ok := strings.CutPrefix(strings.TrimSpace(l), "# ")
		if !ok {
			break
		}
		comment += " " + rest
	}
	var out []string
	for _, part := range strings.Split(comment, "|") {
		part = parenthetical.ReplaceAllString(part, "")
		if i := strings.LastIndex(part, ": "); i >= 0 {
			part = part[i+2:]
		}
		if fields := strings.Fields(part); len(fields) > 0 {
			out = append(out, strings.TrimSuffix(fields[0], ";"))
		}
	}
	return out
}

var parenthetical = regexp.MustCompile(`\([^)]*\)`)
