// What Chromium switches a session may pass (goog:chromeOptions.args, wdgate:options.args), for
// every backend that starts Chromium (native, and chromedriver behind the remote backend).
// Capabilities come from whoever reaches the gateway, and some switches hand over the browser or
// the machine: those are refused unless the operator allows them by name in the config.

/** Switches the gateway itself owns: never from capabilities. */
const RESERVED = /^--(remote-debugging-(port|pipe|address)|user-data-dir)(=|$)/;

/** Switches refused unless the config's native.allowedArgs names them, and why. */
const GUARDED: [RegExp, string][] = [
  [/^--remote-allow-origins(=|$)/, 'opens remote debugging'],
  [/^--(profile-directory|disk-cache-dir|crash-dumps-dir)(=|$)/, 'changes the profile directory'],
  [/^--(load-extension|disable-extensions-except)(=|$)/, 'loads extensions'],
  [/^--(proxy-server|proxy-pac-url|proxy-auto-detect|proxy-bypass-list|host-resolver-rules|host-rules)(=|$)/, 'sets a proxy or host resolver rule'],
  [/^--(renderer-cmd-prefix|utility-cmd-prefix|gpu-launcher|browser-subprocess-path|plugin-launcher)(=|$)/, 'runs another program'],
];

/** The switch name of an argument: `--proxy-server=x` → `--proxy-server`. */
export const switchName = (arg: string): string => arg.replace(/=.*$/s, '');

/** Why `arg` may not be passed (one line naming it), or null when it may. */
export function refusedArg(arg: string, allowed: readonly string[]): string | null {
  if (RESERVED.test(arg)) return `browser argument ${arg} is reserved: wdgate owns the profile and the debugging pipe`;
  for (const [pattern, what] of GUARDED) {
    if (pattern.test(arg) && !allowed.includes(switchName(arg))) {
      return `browser argument ${arg} is refused: it ${what} (an operator may allow ${switchName(arg)} with native.allowedArgs in the config)`;
    }
  }
  return null;
}
