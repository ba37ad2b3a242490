// Package httplimit bounds how much of an HTTP answer is read: ARTT's
// commands read Prometheus' answers through it, so a query that matches far
// more series than meant fails with a clear error instead of holding the
// whole answer in memory.
package httplimit

import (
	"fmt"
	"io"
	"net/http"
)

// ResponseTooLargeError is an answer that passed the bound; the query that
// asked for it wraps it.
type ResponseTooLargeError struct{ Limit int64 }

func (e *ResponseTooLargeError) Error() string {
	return fmt.Sprintf("Prometheus' answer passed %d bytes (--max-response-bytes)", e.Limit)
}

// LimitResponses wraps a transport so that reading a response body past
// limit bytes fails with a *ResponseTooLargeError rather than holding it all.
func LimitResponses(next http.RoundTripper, limit int64) http.RoundTripper {
	return limitedTransport{next: next, limit: limit}
}

type limitedTransport struct {
	next  http.RoundTripper
	limit int64
}

func (t limitedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &limitedBody{ReadCloser: resp.Body, left: t.limit, limit: t.limit}
	return resp, nil
}

// limitedBody reads at most limit bytes and fails on the next one.
type limitedBody struct {
	io.ReadCloser
	left, limit int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, &ResponseTooLargeError{Limit: b.limit}
	}
	// Read one byte past what is left, to tell a body that ends at the
	// bound from one that goes on.
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return n + int(b.left), &ResponseTooLargeError{Limit: b.limit}
	}
	return n, err
}
