/**
 * Chooses the assistant's model from the environment (docs/assistant.md "Providers"):
 * LEADLINE_ASSISTANT_PROVIDER `openai`, `anthropic` or `scripted` (the default: no model, no key);
 * LEADLINE_ASSISTANT_API_KEY (or the provider's own OPENAI_API_KEY / ANTHROPIC_API_KEY),
 * LEADLINE_ASSISTANT_MODEL, LEADLINE_ASSISTANT_BASE_URL, LEADLINE_ASSISTANT_TIMEOUT_MS. A model named
 * without its key is an error at start, never a silent fall-back to the script.
 */
import { z } from 'zod'
import { ConfigError } from '../../config/config.ts'
import type { AssistantProvider } from './assistant-provider.port.ts'
import { createScriptedAssistant } from './scripted/index.ts'

export interface OpenedAssistantProvider {
  readonly provider: AssistantProvider
  /** How long a turn may go without a word from the model before the engine gives up on it. */
  readonly turnTimeoutMs: number
  /** How long a live assistant session may stay silent before it ends (LEADLINE_ASSISTANT_SILENCE_MS). */
  readonly silenceMs: number
}

export const SCRIPTED_ASSISTANT_BANNER = 'assistant: scripted (no model; set LEADLINE_ASSISTANT_PROVIDER and a key for OpenAI or Anthropic)'

const schema = z.object({
  LEADLINE_ASSISTANT_PROVIDER: z.enum(['scripted', 'openai', 'anthropic'], { message: 'must be scripted, openai or anthropic' }).default('scripted'),
  LEADLINE_ASSISTANT_API_KEY: z.string().trim().min(8, 'is too short to be an API key').optional(),
  LEADLINE_ASSISTANT_MODEL: z.string().trim().regex(/^[\w.:/-]{1,100}$/, 'must be a model name such as gpt-4o-mini').optional(),
  LEADLINE_ASSISTANT_BASE_URL: z.string().trim().url('must be a URL').refine((u) => /^https?:\/\//i.test(u), 'must be an http(s) URL').optional(),
  LEADLINE_ASSISTANT_TIMEOUT_MS: z.coerce.number().int('must be whole milliseconds').min(500, 'must be at least 500').max(60_000, 'must be at most 60000').default(8000),
  LEADLINE_ASSISTANT_SILENCE_MS: z.coerce.number().int('must be whole milliseconds').min(1000, 'must be at least 1000').max(600_000, 'must be at most 600000').default(30_000),
  OPENAI_API_KEY: z.string().trim().optional(),
  ANTHROPIC_API_KEY: z.string().trim().optional(),
})

/** The model SDKs load only when their provider is chosen: every process of a scripted install (the CLI's batch commands too) stays without them. */
export async function openAssistantProvider(env: NodeJS.ProcessEnv, logger?: { info(fields: Record<string, unknown>, message: string): void }): Promise<OpenedAssistantProvider> {
  const names = [...Object.keys(schema.shape)]
  const given = Object.fromEntries(Object.entries(env).filter(([name, v]) => names.includes(name) && v !== undefined && v.trim() !== ''))
  const parsed = schema.safeParse(given)
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`))
  const c = parsed.data
  const turnTimeoutMs = c.LEADLINE_ASSISTANT_TIMEOUT_MS
  const silenceMs = c.LEADLINE_ASSISTANT_SILENCE_MS
  const common = { ...(c.LEADLINE_ASSISTANT_BASE_URL !== undefined ? { baseUrl: c.LEADLINE_ASSISTANT_BASE_URL } : {}), ...(c.LEADLINE_ASSISTANT_MODEL !== undefined ? { model: c.LEADLINE_ASSISTANT_MODEL } : {}) }
  switch (c.LEADLINE_ASSISTANT_PROVIDER) {
    case 'scripted': {
      const stray = (['LEADLINE_ASSISTANT_API_KEY', 'LEADLINE_ASSISTANT_MODEL', 'LEADLINE_ASSISTANT_BASE_URL'] as const).filter((name) => c[name] !== undefined)
      if (stray.length > 0) throw new ConfigError(stray.map((name) => `${name}: is only used with a model: set LEADLINE_ASSISTANT_PROVIDER=openai or anthropic, or unset it`))
      logger?.info({ assistant: 'scripted' }, SCRIPTED_ASSISTANT_BANNER)
      return { provider: createScriptedAssistant(), turnTimeoutMs, silenceMs }
    }
    case 'openai': {
      const apiKey = c.LEADLINE_ASSISTANT_API_KEY ?? c.OPENAI_API_KEY
      if (apiKey === undefined || apiKey === '') throw new ConfigError(['LEADLINE_ASSISTANT_API_KEY: is needed with LEADLINE_ASSISTANT_PROVIDER=openai (or set OPENAI_API_KEY)'])
      const { createOpenAiAssistant, DEFAULT_OPENAI_MODEL } = await import('./openai/index.ts')
      const provider = createOpenAiAssistant({ apiKey, ...common })
      logger?.info({ assistant: 'openai', model: provider.model }, `assistant: openai (${provider.model ?? DEFAULT_OPENAI_MODEL})${common.baseUrl ? ` via ${common.baseUrl}` : ''}`)
      return { provider, turnTimeoutMs, silenceMs }
    }
    case 'anthropic': {
      const apiKey = c.LEADLINE_ASSISTANT_API_KEY ?? c.ANTHROPIC_API_KEY
      if (apiKey === undefined || apiKey === '') throw new ConfigError(['LEADLINE_ASSISTANT_API_KEY: is needed with LEADLINE_ASSISTANT_PROVIDER=anthropic (or set ANTHROPIC_API_KEY)'])
      const { createAnthropicAssistant, DEFAULT_ANTHROPIC_MODEL } = await import('./anthropic/index.ts')
      const provider = createAnthropicAssistant({ apiKey, ...common })
      logger?.info({ assistant: 'anthropic', model: provider.model }, `assistant: anthropic (${provider.model ?? DEFAULT_ANTHROPIC_MODEL})${common.baseUrl ? ` via ${common.baseUrl}` : ''}`)
      return { provider, turnTimeoutMs, silenceMs }
    }
  }
}
