/**
 * The disk's own baseline for a durable write: what an fdatasync costs on the filesystem the store
 * is on, with nothing of Leadline running. Every 2xx of the webhook waits for one (shared by the
 * batch it commits in), so a stall of the disk's flush is a stall of every request in flight, and
 * wrk's coordinated-omission correction weighs it as an open stream of senders would feel it: one
 * 200 ms stall in a 10 s run is enough to put the p99 of 50 connections over 50 ms.
 *
 * The probe writes `bytes` and fdatasyncs them every `intervalMs` for `seconds`, as the writer thread
 * commits a batch (16 KB is a batch of about 25 new leads' pages in the log's WAL), synchronously:
 * run it while the servers are idle.
 *
 *   node --import tsx bench/disk-probe.ts [--seconds 20] [--dir /tmp]
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { percentile } from './bench-kit.ts'

export interface DiskProbe {
  readonly syncs: number
  readonly bytes: number
  /** fdatasync latency in milliseconds. */
  readonly p50: number
  readonly p99: number
  readonly p999: number
  readonly max: number
  /** How many took over 50 ms: each such stall holds up every request in flight at the time. */
  readonly over50ms: number
}

export function probeFsync(options: { dir: string; seconds: number; bytes?: number; intervalMs?: number }): DiskProbe {
  const bytes = options.bytes ?? 16 * 1024
  const intervalMs = options.intervalMs ?? 2.5
  const file = path.join(options.dir, `disk-probe-${process.pid}.bin`)
  const fd = fs.openSync(file, 'w')
  const block = Buffer.alloc(bytes, 0x5a)
  const latencies: number[] = []
  try {
    const end = performance.now() + options.seconds * 1000
    let offset = 0
    while (performance.now() < end) {
      const started = performance.now()
      fs.writeSync(fd, block, 0, bytes, offset)
      // Round the file like a WAL that is rewound: 64 MB, then from its start again.
      offset = (offset + bytes) % (64 * 1024 * 1024)
      const syncing = performance.now()
      fs.fdatasyncSync(fd)
      latencies.push(performance.now() - syncing)
      const next = started + intervalMs
      while (performance.now() < next) {
        // a commit's pace: busy-wait, since a timer's granularity is a millisecond
      }
    }
  } finally {
    fs.closeSync(fd)
    fs.rmSync(file, { force: true })
  }
  latencies.sort((a, b) => a - b)
  const ms = (value: number) => Math.round(value * 100) / 100
  return {
    syncs: latencies.length,
    bytes,
    p50: ms(percentile(latencies, 50)),
    p99: ms(percentile(latencies, 99)),
    p999: ms(percentile(latencies, 99.9)),
    max: ms(latencies[latencies.length - 1] ?? 0),
    over50ms: latencies.filter((latency) => latency > 50).length,
  }
}

export function describeProbe(probe: DiskProbe, seconds: number): string {
  return `disk (fdatasync of ${probe.bytes / 1024} KB, ${probe.syncs} in ${seconds} s, nothing else running): p50 ${probe.p50} ms   p99 ${probe.p99} ms   p99.9 ${probe.p999} ms   max ${probe.max} ms   over 50 ms: ${probe.over50ms}`
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const { values } = parseArgs({ options: { seconds: { type: 'string', default: '20' }, dir: { type: 'string', default: os.tmpdir() } } })
  const seconds = Number(values.seconds)
  console.log(describeProbe(probeFsync({ dir: values.dir, seconds }), seconds))
}
