package controller

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// TestPodIndexMatchesEverySelectorAsAScanWould checks that narrowing the
// pods through the index never loses a match nor reorders them: for
// random pods and random selectors (matchLabels, and In, NotIn, Exists
// and DoesNotExist expressions), the candidates that match are exactly the
// pods a full scan matches, in the same order. One index serves every
// selector, as one namespace's does in a snapshot.
func TestPodIndexMatchesEverySelectorAsAScanWould(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 4))
	keys, values := []string{"app", "tier", "track"}, []string{"a", "b", "c"}
	for trial := range 300 {
		ix := &podIndex{byLabel: make(map[string]map[string][]*corev1.Pod)}
		for i := range rng.IntN(30) {
			ls := map[string]string{}
			for _, k := range keys {
				if rng.IntN(3) > 0 {
					ls[k] = values[rng.IntN(len(values))]
				}
			}
			ix.pods = append(ix.pods, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("p%d", i), Labels: ls}})
		}
		for range 5 {
			ls := &metav1.LabelSelector{MatchLabels: map[string]string{}}
			for _, k := range keys {
				switch rng.IntN(6) {
				case 0:
					ls.MatchLabels[k] = values[rng.IntN(len(values))]
				case 1:
					ls.MatchExpressions = append(ls.MatchExpressions, metav1.LabelSelectorRequirement{Key: k, Operator: metav1.LabelSelectorOpIn, Values: values[:1+rng.IntN(2)]})
				case 2:
					ls.MatchExpressions = append(ls.MatchExpressions, metav1.LabelSelectorRequirement{Key: k, Operator: metav1.LabelSelectorOpNotIn, Values: values[:1]})
				case 3:
					ls.MatchExpressions = append(ls.MatchExpressions, metav1.LabelSelectorRequirement{Key: k, Operator: metav1.LabelSelectorOpExists})
				case 4:
					ls.MatchExpressions = append(ls.MatchExpressions, metav1.LabelSelectorRequirement{Key: k, Operator: metav1.LabelSelectorOpDoesNotExist})
				}
			}
			sel, err := metav1.LabelSelectorAsSelector(ls)
			if err != nil {
				t.Fatal(err)
			}
			var scanned, indexed []string
			for _, p := range ix.pods {
				if sel.Matches(labels.Set(p.Labels)) {
					scanned = append(scanned, p.Name)
				}
			}
			for _, p := range ix.candidates(sel) {
				if sel.Matches(labels.Set(p.Labels)) {
					indexed = append(indexed, p.Name)
				}
			}
			if !slices.Equal(indexed, scanned) {
				t.Fatalf("trial %d, selector %s: index finds %v, a scan %v", trial, sel, indexed, scanned)
			}
		}
	}
	if got := (*podIndex)(nil).candidates(labels.Everything()); got != nil {
		t.Errorf("a namespace without pods offers %v", got)
	}
}
