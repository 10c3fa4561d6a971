{{/* Release-wide name, at most 63 characters (DNS label). */}}
{{- define "perp.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" -}}
{{- else if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* Name of one app's objects: (dict "root" $ "app" "gateway"). */}}
{{- define "perp.appName" -}}
{{- printf "%s-%s" (include "perp.fullname" .root | trunc (int (sub 62 (len .app))) | trimSuffix "-") .app -}}
{{- end -}}

{{- define "perp.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: perp-exchange
perp-exchange/chain: {{ .Values.chain.name }}
{{- end -}}

{{/* Selector of one app's pods: (dict "root" $ "app" "gateway"). */}}
{{- define "perp.selectorLabels" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .app }}
{{- end -}}

{{- define "perp.appLabels" -}}
{{ include "perp.labels" .root }}
app.kubernetes.io/component: {{ .app }}
{{- end -}}

{{- define "perp.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "perp.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{ .Values.serviceAccount.name | default (include "perp.fullname" .) }}
{{- else -}}
{{ .Values.serviceAccount.name | default "default" }}
{{- end -}}
{{- end -}}

{{/* One app's settings: defaults, overridden by apps.<app>. (dict "root" $ "app" "gateway") -> YAML. */}}
{{- define "perp.appSettings" -}}
{{- $own := index .root.Values.apps .app | default dict -}}
{{- toYaml (mergeOverwrite (deepCopy .root.Values.defaults) (deepCopy $own)) -}}
{{- end -}}

{{/* The chain configuration, checked against chain.name before anything renders. */}}
{{- define "perp.chainJson" -}}
{{- $config := .Values.chain.config -}}
{{- if not $config -}}
{{- fail "chain.config is required: that chain's chain.json, e.g. --set-json \"chain.config=$(cat deploy/chains/<chain>/chain.json)\"" -}}
{{- end -}}
{{- if ne (toString $config.name) .Values.chain.name -}}
{{- fail (printf "chain.config.name (%v) must equal chain.name (%s)" $config.name .Values.chain.name) -}}
{{- end -}}
{{- toPrettyJson $config -}}
{{- end -}}

{{/*
Environment of every app and Job. Secrets by reference: DATABASE_URL and REDIS_URL for all, the
gateway's auth secrets only where (dict "gateway" true). (dict "root" $ "app" "risk" "extra" map)
*/}}
{{- define "perp.env" -}}
{{- $v := .root.Values -}}
- { name: CHAIN, value: {{ $v.chain.name | quote }} }
- { name: DEPLOY_DIR, value: /etc/perp-exchange }
# Written only in embedded mode; points at the writable emptyDir all the same.
- { name: DATA_DIR, value: /tmp/perp-data }
- { name: BUS, value: kafka }
- { name: KAFKA_BROKERS, value: {{ $v.kafka.brokers | quote }} }
- { name: KAFKA_CLIENT_ID, value: {{ include "perp.appName" . | quote }} }
- { name: HOST, value: 0.0.0.0 }
- { name: PORT, value: {{ $v.port | quote }} }
{{- $secretNames := list "DATABASE_URL" "REDIS_URL" }}
{{- if eq .app "gateway" }}
{{- $secretNames = concat $secretNames (list "ADMIN_TOKEN" "JWT_SECRET" "API_KEY_MASTER_KEY" "API_KEY_MASTER_KEY_PREVIOUS") }}
{{- end }}
{{- range $secretNames }}
- name: {{ . }}
  valueFrom:
    secretKeyRef:
      name: {{ $v.secrets.existingSecret }}
      key: {{ index $v.secrets.keys . | default . }}
      {{- if eq . "API_KEY_MASTER_KEY_PREVIOUS" }}
      optional: true
      {{- end }}
{{- end }}
{{- range $name, $value := mergeOverwrite (deepCopy $v.env) (.extra | default dict) }}
- { name: {{ $name }}, value: {{ $value | toString | quote }} }
{{- end }}
{{- end -}}

{{/* Volumes every pod mounts: the chain configuration and a writable /tmp. */}}
{{- define "perp.volumes" -}}
- name: chain-config
  configMap:
    name: {{ include "perp.appName" (dict "root" . "app" "chain") }}
    items:
      - { key: chain.json, path: chains/{{ .Values.chain.name }}/chain.json }
- name: tmp
  emptyDir: { sizeLimit: 64Mi }
{{- end -}}

{{- define "perp.volumeMounts" -}}
- { name: chain-config, mountPath: /etc/perp-exchange, readOnly: true }
- { name: tmp, mountPath: /tmp }
{{- end -}}
