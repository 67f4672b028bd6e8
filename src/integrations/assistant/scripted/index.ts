export { createScriptedAssistant, READY_QUESTION } from './scripted-assistant.ts'
