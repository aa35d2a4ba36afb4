// The desired Ingress or Gateway API HTTPRoute that lets users outside the cluster reach Coder.
import type { V1HTTPIngressRuleValue, V1Ingress, V1IngressTLS, V1ObjectMeta } from '@kubernetes/client-node';
import type { CoderControlPlane } from '../../../../generated/types/codercontrolplane.ts';
import { nameOf, ownedMetadata } from './names.ts';
import { SpecError } from '../../shared/spec-check.ts';
import { backendPort } from '../../../controlplane/endpoints.ts';
import { definedEntries } from '../../../runtime/object-names.ts';

/** The parts of a gateway.networking.k8s.io/v1 HTTPRoute the operator writes. */
export interface HTTPRoute {
  apiVersion: 'gateway.networking.k8s.io/v1';
  kind: 'HTTPRoute';
  metadata: V1ObjectMeta;
  spec: {
    parentRefs: HTTPRouteParentRef[];
    hostnames: string[];
    rules: HTTPRouteRule[];
  };
}

export interface HTTPRouteParentRef {
  name: string;
  namespace?: string;
  sectionName?: string;
}

export interface HTTPRouteRule {
  matches: { path: { type: 'PathPrefix'; value: string } }[];
  backendRefs: { group: ''; kind: 'Service'; name: string; port: number }[];
}

/**
 * The Ingress for spec.expose.ingress (call it only when that is set): one rule for host and one for
 * wildcardHost, each `/` Prefix to the Service on the backend port; a TLS entry per configured secret.
 */
export function buildIngress(cp: CoderControlPlane): V1Ingress {
  const ingress = cp.spec?.expose?.ingress;
  if (!ingress) throw new Error('buildIngress called without spec.expose.ingress');
  checkOneExposure(cp);
  const host = requiredHost(ingress.host, 'spec.expose.ingress.host');
  const wildcardHost = ingress.wildcardHost?.trim() || undefined;
  const http: V1HTTPIngressRuleValue = {
    paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: nameOf(cp), port: { number: backendPort(cp) } } } }],
  };
  const tls: V1IngressTLS[] = [];
  const secretName = ingress.tls?.secretName?.trim();
  const wildcardSecretName = ingress.tls?.wildcardSecretName?.trim();
  if (secretName) tls.push({ secretName, hosts: [host] });
  if (wildcardSecretName) {
    if (!wildcardHost) {
      throw new SpecError(
        'spec.expose.ingress.tls.wildcardSecretName',
        'a wildcard TLS secret needs spec.expose.ingress.wildcardHost; set the wildcard host or remove the secret',
      );
    }
    tls.push({ secretName: wildcardSecretName, hosts: [wildcardHost] });
  }
  const metadata = ownedMetadata(cp);
  const annotations = definedEntries(ingress.annotations);
  if (annotations) metadata.annotations = annotations;
  const className = ingress.className?.trim();
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata,
    spec: {
      ...(className ? { ingressClassName: className } : {}),
      rules: [host, ...(wildcardHost ? [wildcardHost] : [])].map((h) => ({ host: h, http: structuredClone(http) })),
      ...(tls.length > 0 ? { tls } : {}),
    },
  };
}

/**
 * The HTTPRoute for spec.expose.gateway (call it only when that is set): hostnames host and
 * wildcardHost, and one rule that sends every path to the Service on the backend port.
 */
export function buildHTTPRoute(cp: CoderControlPlane): HTTPRoute {
  const gateway = cp.spec?.expose?.gateway;
  if (!gateway) throw new Error('buildHTTPRoute called without spec.expose.gateway');
  checkOneExposure(cp);
  const host = requiredHost(gateway.host, 'spec.expose.gateway.host');
  const wildcardHost = gateway.wildcardHost?.trim() || undefined;
  const refs = gateway.parentRefs ?? [];
  if (refs.length === 0)
    throw new SpecError('spec.expose.gateway.parentRefs', 'at least one parent Gateway is required; name the Gateway to attach to');
  const parentRefs = refs.map((ref, i): HTTPRouteParentRef => {
    const field = `spec.expose.gateway.parentRefs[${i}]`;
    const name = (ref.name ?? '').trim();
    if (!name) throw new SpecError(`${field}.name`, 'the Gateway name is empty; name the Gateway to attach to');
    const out: HTTPRouteParentRef = { name };
    for (const key of ['namespace', 'sectionName'] as const) {
      if (ref[key] === undefined) continue;
      const value = ref[key].trim();
      if (!value) throw new SpecError(`${field}.${key}`, `the ${key} is blank; remove it or give a value`);
      out[key] = value;
    }
    return out;
  });
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: ownedMetadata(cp),
    spec: {
      parentRefs,
      hostnames: [host, ...(wildcardHost ? [wildcardHost] : [])],
      rules: [
        {
          matches: [{ path: { type: 'PathPrefix', value: '/' } }],
          backendRefs: [{ group: '', kind: 'Service', name: nameOf(cp), port: backendPort(cp) }],
        },
      ],
    },
  };
}

/** Admission forbids both; an object that got past it must not get both children. */
function checkOneExposure(cp: CoderControlPlane): void {
  if (cp.spec?.expose?.ingress && cp.spec.expose.gateway)
    throw new SpecError('spec.expose', 'only one of ingress or gateway may be set; remove one');
}

function requiredHost(value: string | undefined, field: string): string {
  const host = (value ?? '').trim();
  if (!host) throw new SpecError(field, 'the host is empty; set the host name users open, for example coder.example.com');
  return host;
}
