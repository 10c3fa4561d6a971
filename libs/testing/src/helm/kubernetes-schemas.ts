import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Pod } from 'kubernetes-models/v1/Pod';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { PrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';

/**
 * Validation of rendered manifests against the Kubernetes OpenAPI schemas, without a cluster.
 *
 * kubernetes-models ships those schemas compiled by ajv into one validate function per type (the
 * Prometheus Operator package does the same for its CRDs). Like the upstream schemas they accept
 * any extra field, so a misspelled `readinesProbe` would pass; kubeconform's `-strict` forbids
 * undeclared fields, and so does this: it watches which fields the validator asks for, and an
 * object whose schema was consulted but never asked for one of its fields has an undeclared field.
 * Objects the validator enumerates (maps such as labels) or never consults (free-form) are exempt.
 */
const MODELS: Record<string, { prototype: { validate(): void } }> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Pod': Pod,
  'v1/Service': Service,
  'v1/ServiceAccount': ServiceAccount,
  'apps/v1/Deployment': Deployment,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'batch/v1/Job': Job,
  'networking.k8s.io/v1/Ingress': Ingress,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'monitoring.coreos.com/v1/ServiceMonitor': ServiceMonitor,
  'monitoring.coreos.com/v1/PrometheusRule': PrometheusRule,
};

interface Visit {
  path: string;
  target: Record<string, unknown>;
  asked: Set<string>;
  enumerated: boolean;
}

/** `value` behind proxies that record, per object, which fields were asked for. */
function watched(value: unknown, path: string, visits: Visit[]): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    return new Proxy(value, {
      get: (target, key) => {
        const item = Reflect.get(target, key) as unknown;
        return typeof key === 'string' && /^\d+$/.test(key) ? watched(item, `${path}[${key}]`, visits) : item;
      },
    });
  }
  const visit: Visit = {
    path,
    target: value as Record<string, unknown>,
    asked: new Set(),
    enumerated: false,
  };
  visits.push(visit);
  return new Proxy(visit.target, {
    get: (target, key) => {
      if (typeof key !== 'string') return Reflect.get(target, key) as unknown;
      visit.asked.add(key);
      return watched(target[key], `${path}.${key}`, visits);
    },
    has: (target, key) => {
      if (typeof key === 'string') visit.asked.add(key);
      return Reflect.has(target, key);
    },
    ownKeys: (target) => {
      visit.enumerated = true;
      return Reflect.ownKeys(target);
    },
  });
}

/** What is wrong with one manifest: schema errors, undeclared fields, or no schema for its kind. */
export function kubernetesSchemaErrors(manifest: { apiVersion?: unknown; kind?: unknown }): string[] {
  const type = `${String(manifest.apiVersion)}/${String(manifest.kind)}`;
  const model = MODELS[type];
  if (!model) return [`no schema for ${type}`];
  const visits: Visit[] = [];
  const errors: string[] = [];
  try {
    model.prototype.validate.call(watched(manifest, '', visits));
  } catch (e) {
    errors.push((e as Error).message);
  }
  for (const v of visits) {
    if (v.enumerated || v.asked.size === 0) continue;
    for (const key of Object.keys(v.target))
      if (!v.asked.has(key)) errors.push(`${v.path || '.'}: field "${key}" is not in the ${type} schema`);
  }
  return errors;
}
