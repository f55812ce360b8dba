import type { Pod } from '@kubelet-ts/api';
import type { GoValue } from '@kubelet-ts/common';
import { spewForHash } from '@kubelet-ts/common';
import { GO_POD_LAYOUT } from './go-pod-layout.js';
import type { GoTypeLayout } from './go-pod-dump-types.js';
import { quantityGoValue } from './go-quantity.js';

type Json = unknown;
type JsonObject = Readonly<Record<string, Json>>;

/**
 * The text the upstream kubelet hashes for a static pod's UID: `dump.ForHash` of the internal
 * core.Pod the API decoder makes of the manifest. `pod` must be the decoded manifest with the
 * v1 API defaults applied (SetObjectDefaults_Pod) and nothing else (no namespace default, no
 * static pod defaults). The v1 → internal conversion is the generated one (fields paired by Go
 * name) plus upstream's hand-written parts for Pod and PodSpec.
 */
export function internalPodDump(pod: Pod): string {
  return spewForHash({ kind: 'pointer', type: '*core.Pod', target: convert('core.Pod', pod, []) });
}

const INIT_CONTAINER_ANNOTATIONS = [
  'pod.beta.kubernetes.io/init-containers',
  'pod.alpha.kubernetes.io/init-containers',
  'pod.beta.kubernetes.io/init-container-statuses',
  'pod.alpha.kubernetes.io/init-container-statuses',
];

/**
 * Internal fields without a v1 twin of the same name, and fields upstream converts by hand.
 * Each returns the JSON value to convert, given the parent JSON objects (innermost last).
 */
const MANUAL: Readonly<Record<string, (json: JsonObject, parents: readonly JsonObject[]) => Json>> = {
  // The decoder empties TypeMeta when it converts to the internal version.
  'core.Pod.TypeMeta': () => undefined,
  'v1.ObjectMeta.Annotations': (json, parents) => {
    const annotations = json.annotations as Record<string, string> | undefined;
    if (parents.length !== 1 || annotations === undefined || !INIT_CONTAINER_ANNOTATIONS.some((k) => k in annotations)) return annotations;
    return Object.fromEntries(Object.entries(annotations).filter(([k]) => !INIT_CONTAINER_ANNOTATIONS.includes(k)));
  },
  'core.PodSpec.ServiceAccountName': (json) => (json.serviceAccountName as string | undefined) || json.serviceAccount,
  'core.PodSpec.TerminationGracePeriodSeconds': (json) => {
    const period = json.terminationGracePeriodSeconds;
    return typeof period === 'number' && period < 0 ? 1 : period;
  },
  // Convert_v1_PodSpec_To_core_PodSpec moves the host namespace fields into the security context.
  'core.PodSpec.SecurityContext': (json) => ({
    ...((json.securityContext as JsonObject | undefined) ?? {}),
    [HOST_FIELDS]: {
      hostNetwork: json.hostNetwork,
      hostPID: json.hostPID,
      hostIPC: json.hostIPC,
      shareProcessNamespace: json.shareProcessNamespace,
      hostUsers: json.hostUsers,
    },
  }),
  'core.PodSecurityContext.HostNetwork': (json) => hostField(json, 'hostNetwork'),
  'core.PodSecurityContext.HostPID': (json) => hostField(json, 'hostPID'),
  'core.PodSecurityContext.HostIPC': (json) => hostField(json, 'hostIPC'),
  'core.PodSecurityContext.ShareProcessNamespace': (json) => hostField(json, 'shareProcessNamespace'),
  'core.PodSecurityContext.HostUsers': (json) => hostField(json, 'hostUsers'),
  // Convert_v1_PodStatus_To_core_PodStatus: podIP wins over a differing podIPs[0].
  'core.PodStatus.PodIPs': (json) => {
    const podIP = json.podIP as string | undefined;
    const podIPs = json.podIPs as readonly { ip?: string }[] | undefined;
    if (podIP !== undefined && podIP !== '' && (podIPs === undefined || podIPs.length === 0 || podIPs[0]?.ip !== podIP))
      return [{ ip: podIP }];
    return podIPs;
  },
};

const HOST_FIELDS = '\0hostFields';

function hostField(json: JsonObject, name: string): Json {
  return (json[HOST_FIELDS] as JsonObject | undefined)?.[name];
}

function layoutOf(type: string): GoTypeLayout {
  const layout = GO_POD_LAYOUT[type];
  if (layout === undefined) throw new Error(`no Go layout for ${type}`);
  return layout;
}

function convert(type: string, json: Json, parents: readonly JsonObject[], inResourceList = false): GoValue {
  const present = json !== undefined && json !== null;
  if (type === 'resource.Quantity' && present) return quantityGoValue(String(json), inResourceList);
  if (type === 'intstr.IntOrString' && present) return intOrString(json);
  // Timestamps decode into local time and managed fields into raw bytes; static manifests leave
  // both out (or null), which is the zero value.
  if (type === 'v1.Time' || type === 'v1.FieldsV1') return zeroOpaque(type);
  const layout = layoutOf(type);
  switch (layout.kind) {
    case 'struct': {
      const object = isObject(json) ? json : {};
      const fields = (layout as Extract<GoTypeLayout, { kind: 'struct' }>).fields.map(
        ([name, fieldType, jsonName]): readonly [string, GoValue] => {
          const manual = MANUAL[`${type}.${name}`];
          let value: Json;
          if (manual !== undefined) value = manual(object, parents);
          else if (jsonName === ',inline') value = object;
          else if (jsonName === '') value = undefined;
          else value = object[jsonName];
          const nextParents = jsonName === ',inline' ? parents : [...parents, object];
          return [name, convert(fieldType, value, nextParents)];
        },
      );
      return { kind: 'struct', type, fields };
    }
    case 'ptr': {
      const elem = (layout as { elem: string }).elem;
      if (json === undefined || json === null) return { kind: 'pointer', type };
      return { kind: 'pointer', type, target: convert(elem, json, parents) };
    }
    case 'slice': {
      const elem = (layout as { elem: string }).elem;
      if (!Array.isArray(json)) return { kind: 'slice', type };
      return { kind: 'slice', type, items: json.map((item: Json) => convert(elem, item, parents)) };
    }
    case 'map': {
      const { key, elem } = layout as { key: string; elem: string };
      if (!isObject(json)) return { kind: 'map', type };
      const quantities = type === 'core.ResourceList';
      return {
        kind: 'map',
        type,
        entries: Object.entries(json).map(([k, v]) => [convert(key, k, parents), convert(elem, v, parents, quantities)] as const),
      };
    }
    default:
      return scalarValue(type, layout.kind, json);
  }
}

function scalarValue(type: string, kind: string, json: Json): GoValue {
  if (kind === 'string') return { kind: 'scalar', type, text: typeof json === 'string' ? json : '' };
  if (kind === 'bool') return { kind: 'scalar', type, text: json === true ? 'true' : 'false' };
  if (typeof json === 'number' && Number.isFinite(json)) return { kind: 'scalar', type, text: BigInt(Math.trunc(json)).toString() };
  return { kind: 'scalar', type, text: '0' };
}

function intOrString(json: Json): GoValue {
  const isString = typeof json === 'string';
  return {
    kind: 'struct',
    type: 'intstr.IntOrString',
    fields: [
      ['Type', { kind: 'scalar', type: 'intstr.Type', text: isString ? '1' : '0' }],
      ['IntVal', { kind: 'scalar', type: 'int32', text: typeof json === 'number' ? String(Math.trunc(json)) : '0' }],
      ['StrVal', { kind: 'scalar', type: 'string', text: isString ? json : '' }],
    ],
  };
}

function zeroOpaque(type: string): GoValue {
  if (type === 'v1.Time') {
    return {
      kind: 'struct',
      type,
      fields: [
        [
          'Time',
          {
            kind: 'struct',
            type: 'time.Time',
            fields: [
              ['wall', { kind: 'scalar', type: 'uint64', text: '0' }],
              ['ext', { kind: 'scalar', type: 'int64', text: '0' }],
              ['loc', { kind: 'pointer', type: '*time.Location' }],
            ],
          },
        ],
      ],
    };
  }
  return { kind: 'struct', type, fields: [['Raw', { kind: 'slice', type: '[]uint8' }]] };
}

function isObject(json: Json): json is JsonObject {
  return typeof json === 'object' && json !== null && !Array.isArray(json);
}
