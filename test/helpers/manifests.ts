// deploy/kubernetes/ as a cluster would get it: built by `kubectl kustomize` (Debian's
// kubernetes-client has it; scripts/setup.sh installs it), and checked against the Kubernetes
// OpenAPI schemas that npm's kubernetes-models, @kubernetes-models/keda and
// @kubernetes-models/prometheus-operator ship.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import * as core from 'kubernetes-models/v1';
import * as apps from 'kubernetes-models/apps/v1';
import * as networking from 'kubernetes-models/networking.k8s.io/v1';
import * as policy from 'kubernetes-models/policy/v1';
import * as rbac from 'kubernetes-models/rbac.authorization.k8s.io/v1';
import * as keda from '@kubernetes-models/keda/keda.sh/v1alpha1';
import * as monitoring from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';

export const DEPLOY = fileURLToPath(new URL('../../deploy/kubernetes/', import.meta.url));

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Manifest = any;

/** `kubectl kustomize <dir>` (a directory under deploy/kubernetes/), its documents parsed. */
export function kustomize(dir: string): Manifest[] {
  let out: string;
  try {
    out = execFileSync('kubectl', ['kustomize', DEPLOY + dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    const err = e as NodeJS.ErrnoException & { stderr?: string };
    throw new Error(err.code === 'ENOENT' ? 'kubectl is not installed (scripts/setup.sh installs Debian\'s kubernetes-client)' : `kubectl kustomize ${dir} failed: ${err.stderr ?? err.message}`);
  }
  return parseAllDocuments(out).map((d) => {
    if (d.errors.length) throw new Error(`kubectl kustomize ${dir}: ${d.errors[0]!.message}`);
    return d.toJS();
  });
}

/** The one manifest of a kind and name. */
export function find(docs: Manifest[], kind: string, name: string): Manifest {
  const doc = docs.find((d) => d.kind === kind && d.metadata?.name === name);
  if (!doc) throw new Error(`no ${kind} ${name}`);
  return doc;
}

const MODELS: Record<string, Record<string, { prototype: { validate(): void } }>> = {
  v1: core,
  'apps/v1': apps,
  'networking.k8s.io/v1': networking,
  'policy/v1': policy,
  'rbac.authorization.k8s.io/v1': rbac,
  'keda.sh/v1alpha1': keda,
  'monitoring.coreos.com/v1': monitoring,
} as never;

/**
 * What is wrong with a manifest by its kind's OpenAPI schema: the schema's own errors (types,
 * required fields, enumerations, formats), and every field the schema does not have there. The
 * schemas leave out `additionalProperties: false` (the API server prunes unknown fields, or with
 * kubectl's --validate=strict refuses them), so the models' validators pass a field in the wrong
 * place; the check below finds those: the validators read each field their schema knows, so a
 * field of an object the validator looked into and never read is one the schema does not know.
 * (An object the validator did not look into at all is one the schema leaves free.)
 */
export function schemaErrors(manifest: Manifest): string[] {
  const model = MODELS[manifest.apiVersion]?.[manifest.kind];
  if (!model) return [`no schema for ${manifest.apiVersion} ${manifest.kind}`];
  const objects = new Map<object, { path: string; read: Set<PropertyKey>; looked: boolean }>();
  const watched = (value: unknown, path: string): unknown => {
    if (value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.map((item, i) => watched(item, `${path}/${i}`));
    const target = Object.fromEntries(Object.entries(value).map(([key, item]) => [key, watched(item, `${path}/${key}`)]));
    const seen = { path, read: new Set<PropertyKey>(), looked: false };
    objects.set(target, seen);
    const read = (key: PropertyKey) => {
      seen.looked = true;
      seen.read.add(key);
    };
    return new Proxy(target, {
      get: (t, key, receiver) => (read(key), Reflect.get(t, key, receiver)),
      has: (t, key) => (read(key), Reflect.has(t, key)),
      ownKeys: (t) => {
        for (const key of Reflect.ownKeys(t)) read(key);
        return Reflect.ownKeys(t);
      },
    });
  };
  try {
    model.prototype.validate.call(watched(manifest, ''));
  } catch (e) {
    return [(e as Error).message];
  }
  const unknown: string[] = [];
  for (const [object, { path, read, looked }] of objects) {
    if (looked) for (const key of Object.keys(object)) if (!read.has(key)) unknown.push(`${path}/${key} is not a field of its schema`);
  }
  return unknown;
}
