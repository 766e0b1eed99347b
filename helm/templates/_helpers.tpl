{{/*
Names: every object is `<fullname>-<component>`, fullname being the release name unless
fullnameOverride is set, so two releases can share a namespace.
*/}}
{{- define "cp.fullname" -}}
{{- default .Release.Name .Values.fullnameOverride | trunc 30 | trimSuffix "-" -}}
{{- end -}}

{{- define "cp.name" -}}
{{- printf "%s-%s" (include "cp.fullname" .root) .component -}}
{{- end -}}

{{/*
What no default may choose for the operator (ADR 0118): the admin's email, and which gateway
takes the payments, a real one or, explicitly, the sandbox (ADR 0117). Rendering stops with a
message that says what to set.
*/}}
{{- define "cp.requiredChoices" -}}
{{- if not .Values.admin.email -}}
{{- fail "admin.email is required: the email of the ADMIN account the chart creates (its password is secrets.admin); there is no default" -}}
{{- end -}}
{{- $payment := .Values.payment -}}
{{- if and $payment.gatewayUrl $payment.sandbox -}}
{{- fail "payment.gatewayUrl and payment.sandbox=true exclude each other: payments go to one gateway" -}}
{{- else if not (or $payment.gatewayUrl $payment.sandbox) -}}
{{- fail "no payment gateway is chosen: set payment.gatewayUrl and payment.keyId (a Razorpay-compatible gateway), or payment.sandbox=true (the sandbox gateway, which takes no money: development and tests only)" -}}
{{- else if and $payment.gatewayUrl (not $payment.keyId) -}}
{{- fail "payment.keyId is required with payment.gatewayUrl" -}}
{{- end -}}
{{- end -}}

{{/* The service catalog (helm/files/services.json, generated from scripts/cluster/service-catalog.ts). */}}
{{- define "cp.catalog" -}}
{{- .Files.Get "files/services.json" -}}
{{- end -}}

{{- define "cp.selectorLabels" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "cp.labels" -}}
{{ include "cp.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version }}
{{- end -}}

{{/* A platform service's image: services.<name>.image over the global registry and tag. */}}
{{- define "cp.serviceImage" -}}
{{- $image := (index .root.Values.services .component).image | default dict -}}
{{- $repository := $image.repository | default (printf "commerce-platform/%s" .component) -}}
{{- $tag := $image.tag | default .root.Values.global.imageTag | default .root.Chart.AppVersion -}}
{{- printf "%s%s:%s" .root.Values.global.imageRegistry $repository $tag -}}
{{- end -}}

{{/* A service's settings: serviceDefaults overlaid with services.<name>. */}}
{{- define "cp.serviceValues" -}}
{{- $own := index .root.Values.services .component | default dict -}}
{{- toYaml (mergeOverwrite (deepCopy .root.Values.serviceDefaults) (deepCopy $own)) -}}
{{- end -}}

{{/* Every pod: non-root with a numeric user, RuntimeDefault seccomp. */}}
{{- define "cp.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: {{ . }}
runAsGroup: {{ . }}
fsGroup: {{ . }}
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/* Every container: read-only root, no privilege escalation, no capability. */}}
{{- define "cp.containerSecurityContext" -}}
runAsNonRoot: true
runAsUser: {{ . }}
runAsGroup: {{ . }}
readOnlyRootFilesystem: true
allowPrivilegeEscalation: false
privileged: false
capabilities:
  drop: [ALL]
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/* Spread over zones and nodes, best effort (a small cluster still schedules). */}}
{{- define "cp.topologySpread" -}}
{{- range $key := list "topology.kubernetes.io/zone" "kubernetes.io/hostname" }}
- maxSkew: 1
  topologyKey: {{ $key }}
  whenUnsatisfiable: ScheduleAnyway
  labelSelector:
    matchLabels:
      {{- include "cp.selectorLabels" $ | nindent 6 }}
  matchLabelKeys: [pod-template-hash]
{{- end }}
{{- end -}}

{{/* The external dependencies' addresses: the in-cluster ones in the dev profile. */}}
{{- define "cp.mongodbUrl" -}}
{{- if .Values.inCluster.enabled -}}
mongodb://{{ include "cp.name" (dict "root" . "component" "mongodb") }}:27017
{{- else -}}
{{ required "mongodb.url is required (mongodb://host:port)" .Values.mongodb.url }}
{{- end -}}
{{- end -}}

{{- define "cp.kafkaBrokers" -}}
{{- if .Values.inCluster.enabled -}}
{{ include "cp.name" (dict "root" . "component" "kafka") }}:9092
{{- else -}}
{{ required "kafka.brokers is required (host:port[,host:port...])" .Values.kafka.brokers }}
{{- end -}}
{{- end -}}

{{- define "cp.clickhouseUrl" -}}
{{- if .Values.inCluster.enabled -}}
http://{{ include "cp.name" (dict "root" . "component" "clickhouse") }}:8123/commerce_analytics
{{- else -}}
{{ required "clickhouse.url is required (http://host:8123[/database])" .Values.clickhouse.url }}
{{- end -}}
{{- end -}}

{{/* The Secret that holds a group's keys: its existingSecret or the chart's own. */}}
{{- define "cp.secretName" -}}
{{- $group := index .root.Values.secrets .component -}}
{{- $group.existingSecret | default (include "cp.name" .) -}}
{{- end -}}

{{/* The variable `name` from the key of the same name of a group's Secret, or from `key`. */}}
{{- define "cp.secretEnv" -}}
- name: {{ .name }}
  valueFrom:
    secretKeyRef:
      name: {{ include "cp.secretName" (dict "root" .root "component" .group) }}
      key: {{ .key | default .name }}
{{- end -}}

{{/*
The trust Secret's keys derived from its two secrets (ADR 0105, docs/kubernetes.md lists them),
as services/runtime/src/identity/hop-credentials.ts derives them: a credential is the hex
SHA-256 of "edge:<service>:<EDGE_SECRET>" or "peer:<caller>:<callee>:<PEER_SECRET>", and a
service holds the hex SHA-256 of what it accepts. For each routed service S:
edge-credential.S (Envoy's) and edge-credential-sha256.S; for each caller A of a service B:
peer-credential.A.B (A's); for each B with callers: peer-callers-sha256.B
("A=<hex>,..." in the catalog's order).
*/}}
{{- define "cp.trustDerived" -}}
{{- $data := .data -}}
{{- $catalog := (include "cp.catalog" .root | fromJson).services -}}
{{- range $service := $catalog -}}
{{- if $service.routed -}}
{{- $credential := printf "edge:%s:%s" $service.name $data.EDGE_SECRET | sha256sum -}}
{{- $_ := set $data (printf "edge-credential.%s" $service.name) $credential -}}
{{- $_ := set $data (printf "edge-credential-sha256.%s" $service.name) ($credential | sha256sum) -}}
{{- end -}}
{{- end -}}
{{- range $callee := $catalog -}}
{{- $callers := list -}}
{{- range $caller := $catalog -}}
{{- range $variable, $peer := $caller.peers -}}
{{- if eq $peer $callee.name -}}
{{- $credential := printf "peer:%s:%s:%s" $caller.name $callee.name $data.PEER_SECRET | sha256sum -}}
{{- $_ := set $data (printf "peer-credential.%s.%s" $caller.name $callee.name) $credential -}}
{{- $callers = append $callers (printf "%s=%s" $caller.name ($credential | sha256sum)) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if $callers -}}
{{- $_ := set $data (printf "peer-callers-sha256.%s" $callee.name) (join "," $callers) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
The chart's own secret values, resolved once per render and kept in .Values.secrets.resolved:
a value given in values wins, then the value the release's Secret already holds (lookup: kept
across upgrades), then a new random one. Groups with an existingSecret are not resolved.
*/}}
{{- define "cp.resolveSecrets" -}}
{{- if not (hasKey .Values.secrets "resolved") -}}
{{- $root := . -}}
{{- $resolved := dict -}}
{{- $spec := dict
  "jwt" (list (list "JWT_SECRET" .Values.secrets.jwt.jwtSecret 86))
  "payment" (list (list "PAYMENT_KEY_SECRET" .Values.secrets.payment.keySecret 43) (list "PAYMENT_WEBHOOK_SECRET" .Values.secrets.payment.webhookSecret 43))
  "trust" (list (list "EDGE_SECRET" .Values.secrets.trust.edgeSecret 43) (list "PEER_SECRET" .Values.secrets.trust.peerSecret 43))
  "admin" (list (list "ADMIN_PASSWORD" .Values.secrets.admin.password 24)) -}}
{{- range $group, $keys := $spec -}}
{{- if not (index $root.Values.secrets $group).existingSecret -}}
{{- $existing := lookup "v1" "Secret" $root.Release.Namespace (include "cp.name" (dict "root" $root "component" $group)) -}}
{{- $data := dict -}}
{{- range $keys -}}
{{- $key := index . 0 -}}
{{- $value := index . 1 -}}
{{- if and (not $value) $existing (hasKey ($existing.data | default dict) $key) -}}
{{- $value = index $existing.data $key | b64dec -}}
{{- end -}}
{{- $_ := set $data $key ($value | default (randAlphaNum (index . 2))) -}}
{{- end -}}
{{- if eq $group "jwt" -}}
{{- $k := $data.JWT_SECRET | b64enc | replace "+" "-" | replace "/" "_" | trimSuffix "=" | trimSuffix "=" -}}
{{- $_ := set $data "jwks.json" (dict "keys" (list (dict "kty" "oct" "alg" "HS512" "k" $k)) | toJson) -}}
{{- end -}}
{{- if eq $group "trust" -}}
{{- include "cp.trustDerived" (dict "root" $root "data" $data) -}}
{{- end -}}
{{- $_ := set $resolved $group $data -}}
{{- end -}}
{{- end -}}
{{- $_ := set .Values.secrets "resolved" $resolved -}}
{{- end -}}
{{- end -}}

{{/* Rolls a pod when a secret the chart made changes (processes read them at start). */}}
{{- define "cp.secretsChecksum" -}}
{{- include "cp.resolveSecrets" . -}}
{{- .Values.secrets.resolved | toJson | sha256sum -}}
{{- end -}}

{{/* NetworkPolicy egress every pod needs: the cluster DNS. */}}
{{- define "cp.dnsEgress" -}}
- to:
    - namespaceSelector:
        matchLabels:
          {{- toYaml .Values.dns.namespaceSelector | nindent 10 }}
      podSelector:
        matchLabels:
          {{- toYaml .Values.dns.podSelector | nindent 10 }}
  ports:
    - { port: 53, protocol: UDP }
    - { port: 53, protocol: TCP }
{{- end -}}

{{/* Egress to one external dependency: its port, to its peers (anywhere when none). */}}
{{- define "cp.dependencyEgress" -}}
{{- $dependency := index .root.Values .component -}}
{{- if .root.Values.inCluster.enabled }}
- to:
    - podSelector:
        matchLabels:
          {{- include "cp.selectorLabels" . | nindent 10 }}
  ports:
    - { port: {{ .port }}, protocol: TCP }
{{- else }}
- ports:
    - { port: {{ $dependency.networkPolicy.port }}, protocol: TCP }
  {{- with $dependency.networkPolicy.to }}
  to:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end }}
{{- end -}}
