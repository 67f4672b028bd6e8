/**
 * This node's effect processes, found by their files: every `<name>/<name>.process.ts` of this folder
 * that exports `createEffectProcess` gives one, built from the same dependencies. Adding a process
 * that acts on the world is adding its folder: the composition root feeds, recovers, sweeps and stops
 * whatever it finds here, and a command reaches one by its class (`effects.get(Texter)`).
 */
import { existsSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { Carrier } from '../integrations/carrier/carrier.port.ts'
import type { PaymentsProvider } from '../integrations/payments/payments.port.ts'
import type { FacebookGraph } from '../integrations/facebook/graph-api.ts'
import type { FacebookLeadAds } from '../commands/facebook-lead-ads.ts'
import type { EffectProcess, OnceEffectProcessOptions } from './effect-process.ts'

export const PROCESSES_DIR = fileURLToPath(new URL('./', import.meta.url))

/** What every effect process may be built from: the composition root hands each the same. */
export interface EffectProcessDeps extends OnceEffectProcessOptions {
  readonly carrier: Carrier
  readonly paymentsProvider: PaymentsProvider
  /** Base URL for carrier callbacks and links (LEADLINE_PUBLIC_URL), without a trailing slash. */
  readonly publicUrl: string
  /** Facebook Lead Ads when FACEBOOK_* are set; null otherwise (its fetcher is then not made). */
  readonly facebook: {
    readonly ads: FacebookLeadAds
    readonly graph: FacebookGraph
    readonly graphTimeoutMs: number
    readonly retryDelaysMs?: readonly number[]
  } | null
}

/** What a process file exports: its process, or null when this node is not set up for it. */
export type CreateEffectProcess = (deps: EffectProcessDeps) => EffectProcess | null

/** `.process.ts` in the sources, `.process.js` in the build. */
function processFile(dir: string, folder: string): string | null {
  for (const extension of ['ts', 'js']) {
    const file = path.join(dir, folder, `${folder}.process.${extension}`)
    if (existsSync(file)) return file
  }
  return null
}

/** Every effect process in `dir`'s folders, in folder order. */
export async function loadEffectProcesses(deps: EffectProcessDeps, dir: string = PROCESSES_DIR): Promise<EffectProcesses> {
  const processes: EffectProcess[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const file = entry.isDirectory() ? processFile(dir, entry.name) : null
    if (file === null) continue
    const module = (await import(pathToFileURL(file).href)) as { createEffectProcess?: CreateEffectProcess }
    // The other process managers (follow-up's timers, outbound events, owner alerts) are made by the composition root.
    const made = module.createEffectProcess?.(deps)
    if (made) processes.push(made)
  }
  return new EffectProcesses(processes)
}

export class EffectProcesses {
  constructor(readonly all: readonly EffectProcess[]) {
    const names = new Set(all.map((process) => process.name))
    if (names.size !== all.length) throw new Error('two effect processes perform the same effect')
  }

  /** The process of that class, or undefined when this node has none (Facebook's fetcher without FACEBOOK_*). */
  find<P extends EffectProcess>(kind: abstract new (...args: never[]) => P): P | undefined {
    return this.all.find((process): process is P => process instanceof kind)
  }

  /** The process of that class; one this node must have. */
  get<P extends EffectProcess>(kind: abstract new (...args: never[]) => P): P {
    const found = this.find(kind)
    if (!found) throw new Error(`no ${kind.name} on this node`)
    return found
  }
}
