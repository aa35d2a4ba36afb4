{{/* Names, labels and checks of values shared by the chart's templates. */}}

{{/* The name of the release's objects: the release name when it already says coder-k8s. */}}
{{- define "coder-k8s.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else if contains "coder-k8s" .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-coder-k8s" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end }}

{{- define "coder-k8s.selectorLabels" -}}
app.kubernetes.io/name: coder-k8s
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "coder-k8s.labels" -}}
{{ include "coder-k8s.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end }}

{{/* The operator's ServiceAccount as a binding's subject. */}}
{{- define "coder-k8s.subject" -}}
- kind: ServiceAccount
  name: {{ include "coder-k8s.fullname" . }}
  namespace: {{ .Release.Namespace }}
{{- end }}

{{- define "coder-k8s.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default (printf "v%s" .Chart.AppVersion)) -}}
{{- end }}

{{/* True (non-empty) when this install runs the aggregated API server. */}}
{{- define "coder-k8s.servesAggregatedApi" -}}
{{- if or (eq .Values.app "all") (eq .Values.app "aggregated-apiserver") }}true{{ end -}}
{{- end }}

{{/* Checks across values that values.schema.json cannot express; each error names the value and the fix. */}}
{{- define "coder-k8s.checkValues" -}}
{{- if and .Values.watchNamespaces (ne .Values.app "controller") -}}
{{- fail (printf "watchNamespaces is set, so app must be controller (it is %q): the aggregated API server serves every namespace and needs the cluster-wide role; set app=controller or leave watchNamespaces empty" .Values.app) -}}
{{- end -}}
{{- if and (eq .Values.app "aggregated-apiserver") (not .Values.aggregatedApi.coderUrl) -}}
{{- fail "app is aggregated-apiserver, so aggregatedApi.coderUrl must name the Coder it serves (and aggregatedApi.coderSessionTokenSecret.name the Secret holding an owner session token)" -}}
{{- end -}}
{{- if and (eq .Values.app "aggregated-apiserver") (not .Values.aggregatedApi.coderSessionTokenSecret.name) -}}
{{- fail "app is aggregated-apiserver, so aggregatedApi.coderSessionTokenSecret.name must name the Secret holding an owner session token for aggregatedApi.coderUrl" -}}
{{- end -}}
{{- if and .Values.metrics.enabled (not .Values.metrics.port) -}}
{{- fail "metrics.enabled is true, so metrics.port must be a port number" -}}
{{- end -}}
{{- end }}
