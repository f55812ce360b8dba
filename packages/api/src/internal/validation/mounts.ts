import type { Container, Volume } from '../../schemas.js';
import type { Issues } from './issues.js';

const PROPAGATIONS = ['None', 'HostToContainer', 'Bidirectional'] as const;

export function validateMounts(c: Container, path: string, volumes: Map<string, Volume>, issues: Issues): void {
  const mountPaths = new Set<string>();
  (c.volumeMounts ?? []).forEach((m, i) => {
    const p = `${path}.volumeMounts[${i}]`;
    if (m.name === '') issues.required(`${p}.name`);
    else if (!volumes.has(m.name)) issues.notFound(`${p}.name`, m.name);
    if (m.mountPath === '') issues.required(`${p}.mountPath`);
    else {
      if (!m.mountPath.startsWith('/')) issues.invalid(`${p}.mountPath`, m.mountPath, 'must be an absolute path');
      if (mountPaths.has(m.mountPath)) issues.invalid(`${p}.mountPath`, m.mountPath, 'must be unique');
      mountPaths.add(m.mountPath);
    }
    if (m.subPath !== undefined && m.subPath !== '') {
      validateRelativePath(`${p}.subPath`, m.subPath, issues);
      if (m.subPathExpr !== undefined && m.subPathExpr !== '') {
        issues.invalid(`${p}.subPathExpr`, m.subPathExpr, 'subPathExpr and subPath are mutually exclusive');
      }
    }
    if (m.subPathExpr !== undefined && m.subPathExpr !== '') validateRelativePath(`${p}.subPathExpr`, m.subPathExpr, issues);
    issues.enumValue(`${p}.mountPropagation`, m.mountPropagation, PROPAGATIONS);
    if (m.mountPropagation === 'Bidirectional' && c.securityContext?.privileged !== true) {
      issues.forbidden(`${p}.mountPropagation`, 'Bidirectional mount propagation is available only to privileged containers');
    }
  });
  (c.volumeDevices ?? []).forEach((d, i) => {
    const p = `${path}.volumeDevices[${i}]`;
    if (d.name === '') issues.required(`${p}.name`);
    else if (!volumes.has(d.name)) issues.notFound(`${p}.name`, d.name);
    if (d.devicePath === '') issues.required(`${p}.devicePath`);
    else if (!d.devicePath.startsWith('/')) issues.invalid(`${p}.devicePath`, d.devicePath, 'must be an absolute path');
    if (mountPaths.has(d.devicePath)) issues.invalid(`${p}.devicePath`, d.devicePath, 'must not be used as a mountPath too');
  });
}

function validateRelativePath(path: string, value: string, issues: Issues): void {
  if (value.startsWith('/')) issues.invalid(path, value, 'must be a relative path');
  if (value.split('/').includes('..')) issues.invalid(path, value, "must not contain '..'");
}
