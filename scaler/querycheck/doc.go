// Package querycheck parses the PromQL artt-scaler renders from a trigger's
// metadata with Prometheus' own parser. It is a module of its own so that
// Prometheus' module, and the versions it asks for, stay out of the
// scaler's build.
package querycheck
