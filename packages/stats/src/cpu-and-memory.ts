import type { ContainerStats, Summary } from './types.js';

function cpuAndMemoryOf(c: ContainerStats): ContainerStats {
  return { name: c.name, startTime: c.startTime, ...(c.cpu ? { cpu: c.cpu } : {}), ...(c.memory ? { memory: c.memory } : {}) };
}

/**
 * What upstream serves for `/stats/summary?only_cpu_and_memory=true` (GetCPUAndMemoryStats, what
 * metrics-server asks for): the node's name, start time, CPU and memory, its system containers'
 * CPU and memory, and each pod's reference, start time, CPU, memory and containers' CPU and memory.
 */
export function cpuAndMemorySummary(summary: Summary): Summary {
  const { node } = summary;
  return {
    node: {
      nodeName: node.nodeName,
      startTime: node.startTime,
      ...(node.cpu ? { cpu: node.cpu } : {}),
      ...(node.memory ? { memory: node.memory } : {}),
      ...(node.systemContainers ? { systemContainers: node.systemContainers.map(cpuAndMemoryOf) } : {}),
    },
    pods: summary.pods.map((p) => ({
      podRef: p.podRef,
      startTime: p.startTime,
      containers: p.containers.map(cpuAndMemoryOf),
      ...(p.cpu ? { cpu: p.cpu } : {}),
      ...(p.memory ? { memory: p.memory } : {}),
    })),
  };
}
