export { createAnthropicAssistant, DEFAULT_ANTHROPIC_MODEL, type AnthropicAssistantOptions } from './anthropic-assistant.adapter.ts'
