// Spec §16 "User prompts": Dismiss Alert, Accept Alert, Get Alert Text, Send Alert Text.
// These act on the current user prompt, so they never run the user prompt handler first.
import { error } from '../errors.ts';
import { p } from '../params.ts';
import { closePrompt, currentUserPrompt, promptMessage, setPromptText } from '../prompts.ts';
import { sessionCommand } from './types.ts';

export const dismissAlert = sessionCommand({
  handlesUserPrompts: false,
  async handler({ session }) {
    const { handle, prompt } = await currentUserPrompt(session);
    // Spec: dismissing an alert (no Cancel button) is the same as accepting it.
    await closePrompt(session, handle, prompt, false);
    return null;
  },
});

export const acceptAlert = sessionCommand({
  handlesUserPrompts: false,
  async handler({ session }) {
    const { handle, prompt } = await currentUserPrompt(session);
    await closePrompt(session, handle, prompt, true);
    return null;
  },
});

export const getAlertText = sessionCommand({
  handlesUserPrompts: false,
  async handler({ session }) {
    const { prompt } = await currentUserPrompt(session);
    return promptMessage(prompt);
  },
});

export const sendAlertText = sessionCommand({
  handlesUserPrompts: false,
  // Spec: text is checked first (invalid argument), then the window, then the prompt.
  params: p.object({ text: p.string }),
  async handler({ session }, { text }) {
    const { prompt } = await currentUserPrompt(session);
    switch (prompt.type) {
      case 'alert':
      case 'confirm':
        throw error('element not interactable', `a ${prompt.type} user prompt has no text field`);
      case 'prompt':
        setPromptText(prompt, text);
        return null;
      default:
        throw error('unsupported operation', `a ${prompt.type} user prompt has no text field`);
    }
  },
});
