package promvector

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/api"
)

// Query runs an instant query at the given time through the client (its
// address, transport and round-tripper, as the general client uses them)
// and decodes the answer with Decode. timeout bounds the evaluation on
// the Prometheus side as the timeout parameter; ctx bounds the request.
// Like the general client it POSTs the query and falls back to GET when a
// proxy in front of Prometheus refuses the POST (403, 405 or 501).
func Query(ctx context.Context, client api.Client, query string, at time.Time, timeout time.Duration, wanted []string, each func(labels []string, value float64)) error {
	form := url.Values{"query": {query}, "time": {strconv.FormatFloat(float64(at.Unix())+float64(at.Nanosecond())/1e9, 'f', -1, 64)}}
	if timeout > 0 {
		form.Set("timeout", timeout.String())
	}
	u := client.URL("/api/v1/query", nil)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	// A query changes nothing: the transport may retry it on a network
	// error, as it would a GET (an empty key is not sent).
	req.Header["Idempotency-Key"] = nil
	resp, body, err := client.Do(ctx, req)
	if resp != nil && (resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusMethodNotAllowed || resp.StatusCode == http.StatusNotImplemented) {
		u.RawQuery = form.Encode()
		if req, err = http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil); err != nil {
			return err
		}
		resp, body, err = client.Do(ctx, req)
	}
	if err != nil {
		return err
	}
	if err := Decode(body, wanted, each); err != nil {
		if resp.StatusCode/100 != 2 {
			return fmt.Errorf("prometheus answered HTTP %s: %w", resp.Status, err)
		}
		return err
	}
	return nil
}
