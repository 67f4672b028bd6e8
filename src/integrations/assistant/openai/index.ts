export { createOpenAiAssistant, DEFAULT_OPENAI_MODEL, type OpenAiAssistantOptions } from './openai-assistant.adapter.ts'
