{{/* Labels every object carries: the kustomize manifests' part-of, and Helm's own. */}}
{{- define "artt.labels" -}}
app.kubernetes.io/part-of: artt
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end }}

{{/* A component's image: "artt.image" (list $ "artt-scaler"). */}}
{{- define "artt.image" -}}
{{- $root := index . 0 -}}
{{- printf "%s/%s:%s" $root.Values.image.registry (index . 1) (default $root.Chart.AppVersion $root.Values.image.tag) -}}
{{- end }}

{{/* The namespace of the monitoring objects. */}}
{{- define "artt.monitoringNamespace" -}}
{{- default .Release.Namespace .Values.monitoring.namespace -}}
{{- end }}

{{/* The pod security context every component runs with. */}}
{{- define "artt.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 65532
runAsGroup: 65532
seccompProfile:
  type: RuntimeDefault
{{- end }}

{{/* The container security context every component runs with. */}}
{{- define "artt.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop: ["ALL"]
{{- end }}
