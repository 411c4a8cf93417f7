// The user-prompt guard's rules (backends/prompt-guard.ts), with a stand-in page: what it says
// of a navigation the page refuses, however the backend's reports are ordered.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PromptGuard } from '../../backends/prompt-guard.ts';

const beforeunload = { type: 'beforeunload' as const, message: '', defaultValue: '' };

/** A guard whose listener dismisses every prompt, as unhandledPromptBehavior beforeUnload "dismiss" does. */
function dismissingGuard(page: object) {
  const guard = new PromptGuard<object>();
  guard.watch(page);
  guard.onOpened(() => void guard.handle(page, false));
  return guard;
}

test('a navigation that fails once its beforeunload prompt was dismissed is refused, not failed', async () => {
  const page = {};
  const guard = dismissingGuard(page);
  const navigation = guard.unblocked(page, true, () => {
    guard.opened(page, 'w', beforeunload, async () => {
      guard.closed(page, false);
      return true;
    });
    return new Promise((_, reject) => setTimeout(() => reject(new Error('net::ERR_ABORTED')), 10));
  });
  assert.equal(await navigation, undefined);
});

test('a navigation that fails while its dismissal is still being answered is refused too', async () => {
  // Playwright's Firefox fails a refused reload ("Navigation failed") before dismiss() resolves.
  const page = {};
  const guard = dismissingGuard(page);
  let failed!: () => void;
  const navigation = guard.unblocked(page, true, () => {
    const failure = new Promise<never>((_, reject) => (failed = () => reject(new Error('Navigation failed'))));
    guard.opened(page, 'w', beforeunload, async () => {
      failed();
      await new Promise((r) => setTimeout(r, 20));
      guard.closed(page, false);
      return true;
    });
    return failure;
  });
  assert.equal(await navigation, undefined);
});

test('a navigation that fails with no prompt closed fails', async () => {
  const page = {};
  const guard = dismissingGuard(page);
  await assert.rejects(
    guard.unblocked(page, true, async () => {
      throw new Error('NS_ERROR_UNKNOWN_HOST');
    }),
    /NS_ERROR_UNKNOWN_HOST/,
  );
});
