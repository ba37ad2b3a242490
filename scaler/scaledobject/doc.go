// Package scaledobject reads KEDA's ScaledObjects from the Kubernetes API
// for artt-scaler: the cached watch that admits only calls for a
// ScaledObject that exists and sends its trigger to this scaler, and the
// triggers `artt-scaler check` reads. It keeps client-go out of package
// scaler, whose service and arithmetic need none of it.
package scaledobject
