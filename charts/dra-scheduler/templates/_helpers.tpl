{{/*
The labels of every object: the selector label plus commonLabels.
*/}}
{{- define "dra-scheduler.labels" -}}
app.kubernetes.io/name: dra-scheduler
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/*
The image: repository@digest, or repository:tag (tag defaulting to the
chart's appVersion).
*/}}
{{- define "dra-scheduler.image" -}}
{{- if .Values.image.digest -}}
{{ .Values.image.repository }}@{{ .Values.image.digest }}
{{- else -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}
{{- end }}

{{/*
The KubeSchedulerConfiguration the ConfigMap holds, without its final
newline. It is written out as text, in the order of
manifests/install/configmap.yaml (and manifests/overlays/in-tree), so that
with default values its SHA-256, the pod template's config-sha256
annotation, is the one kustomize's build has.
*/}}
{{- define "dra-scheduler.config" -}}
{{- $args := .Values.plugin.args -}}
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
# No /debug/pprof on the serving port: profiling is a debugging step
# to turn on when needed, not an endpoint every token with /metrics
# access can call.
enableProfiling: false
clientConnection:
  qps: {{ .Values.clientConnection.qps }}
  burst: {{ .Values.clientConnection.burst }}
leaderElection:
{{- if .Values.leaderElection.enabled }}
  leaderElect: true
  {{- with get .Values.leaderElection "leaseDuration" }}
  leaseDuration: {{ . }}
  {{- end }}
  {{- with get .Values.leaderElection "renewDeadline" }}
  renewDeadline: {{ . }}
  {{- end }}
  {{- with get .Values.leaderElection "retryPeriod" }}
  retryPeriod: {{ . }}
  {{- end }}
  resourceLock: leases
  resourceName: {{ .Values.leaderElection.leaseName }}
  resourceNamespace: {{ .Release.Namespace }}
{{- else }}
  leaderElect: false
{{- end }}
profiles:
- schedulerName: {{ .Values.schedulerName }}
{{- if .Values.inTree.enabled }}
  pluginConfig:
  - name: DynamicResources
    {{- include "dra-scheduler.args" (dict "args" $args "inTree" true) | nindent 4 }}
{{- else }}
  plugins:
    multiPoint:
      enabled:
      - name: DRAAllocator
        weight: {{ .Values.plugin.weight }}
      - name: DefaultPreemption
      disabled:
      - name: DynamicResources
      - name: DefaultPreemption
      - name: TopologyPlacementGenerator
    placementScore:
      enabled:
      - name: DRAAllocator
        weight: {{ .Values.plugin.placementWeight }}
  pluginConfig:
  - name: DRAAllocator
    {{- include "dra-scheduler.args" (dict "args" $args "inTree" false) | nindent 4 }}
{{- end }}
{{- end }}

{{/*
The args stanza of the allocating plugin's pluginConfig entry: the
timeouts DRAAllocator and DynamicResources share, then DRAAllocator's own
(unless inTree); "args: {}" when every arg is left to the plugin's default.
*/}}
{{- define "dra-scheduler.args" -}}
{{- $a := .args -}}
{{- $lines := list -}}
{{- with get $a "filterTimeout" }}{{ $lines = append $lines (printf "filterTimeout: %s" .) }}{{ end -}}
{{- with get $a "bindingTimeout" }}{{ $lines = append $lines (printf "bindingTimeout: %s" .) }}{{ end -}}
{{- if not .inTree -}}
{{- with get $a "scoringStrategy" }}{{ with get . "type" }}{{ $lines = append $lines (printf "scoringStrategy:\n  type: %s" .) }}{{ end }}{{ end -}}
{{- with get $a "deviceSelectionPolicy" }}{{ $lines = append $lines (printf "deviceSelectionPolicy: %s" .) }}{{ end -}}
{{- with get $a "preemption" }}{{ $lines = append $lines (printf "preemption: %s" .) }}{{ end -}}
{{- with get $a "placementScoring" }}{{ $lines = append $lines (printf "placementScoring: %s" .) }}{{ end -}}
{{- if and (hasKey $a "maxPlacements") (not (kindIs "invalid" (get $a "maxPlacements"))) }}{{ $lines = append $lines (printf "maxPlacements: %v" (get $a "maxPlacements")) }}{{ end -}}
{{- with get $a "groupPlanTimeout" }}{{ $lines = append $lines (printf "groupPlanTimeout: %s" .) }}{{ end -}}
{{- with get $a "consistencyCheckInterval" }}{{ $lines = append $lines (printf "consistencyCheckInterval: %s" .) }}{{ end -}}
{{- end -}}
{{- if $lines -}}
args:
{{- join "\n" $lines | nindent 2 }}
{{- else -}}
args: {}
{{- end -}}
{{- end }}

{{/*
The config's SHA-256, as the ConfigMap's config.yaml key holds it (with
its final newline).
*/}}
{{- define "dra-scheduler.configHash" -}}
{{ printf "%s\n" (include "dra-scheduler.config" .) | sha256sum }}
{{- end }}

{{/*
An int-or-string value: a number as it is, a string (a percentage) quoted.
*/}}
{{- define "dra-scheduler.intOrString" -}}
{{- if kindIs "string" . }}{{ quote . }}{{ else }}{{ . }}{{ end -}}
{{- end }}

{{/*
The namespaces whose pods the routing policies (admission.yaml) send to
dra-scheduler: those labelled in (OptIn), or all but kube-system, the
excluded ones and those labelled out (OptOut).
*/}}
{{- define "dra-scheduler.routingNamespaceSelector" -}}
{{- if eq .Values.admission.mode "OptOut" -}}
matchExpressions:
- key: kubernetes.io/metadata.name
  operator: NotIn
  values:
  - kube-system
  {{- range without (uniq .Values.admission.excludedNamespaces) "kube-system" }}
  - {{ . }}
  {{- end }}
- key: {{ .Values.admission.namespaceLabel }}
  operator: NotIn
  values:
  - {{ .Values.admission.optOutLabelValue | quote }}
{{- else -}}
matchLabels:
  {{ .Values.admission.namespaceLabel }}: {{ .Values.admission.namespaceLabelValue | quote }}
{{- end -}}
{{- end }}
