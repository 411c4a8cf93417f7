// What a client's raw CDP (se:cdp, and chromium-bidi's goog:cdp.sendCommand) may ask of its
// browser. CDP reaches the whole browser process, so a session gets it only with a browser of its
// own; but the browser runs on the gateway's machine, and some commands reach the machine: a
// navigation or a resource load of a file: URL, a download into any directory, a file input given
// any path, installing web apps or extensions from a path, binding a port (tethering), the
// browser's own commands. Those are checked as the classic commands are; the rest is the
// session's own browser's business.
import { checkFilesForRawCommand, directoryRefusal, FileRefusal, type SessionFiles } from './files.ts';
import { navigationRefusal } from './urls.ts';

/** Domains no session may use: they install apps and extensions, bind ports, cast to devices. */
const REFUSED_DOMAINS = new Set(['PWA', 'Extensions', 'Tethering', 'Cast']);

/** Commands no session may use, with why. */
const REFUSED_METHODS: Record<string, string> = {
  'Browser.executeBrowserCommand': 'it runs the browser\'s own UI commands',
  // It hands the protocol to the page's own script, past this check.
  'Target.exposeDevToolsProtocol': 'it gives a page\'s script the browser\'s protocol',
  'Target.setRemoteLocations': 'it makes the browser connect to other debugging targets',
};

/** Parameters that are URLs the browser navigates to or loads. */
const URL_PARAMS: Record<string, string> = {
  'Page.navigate': 'url',
  'Target.createTarget': 'url',
  'Network.loadNetworkResource': 'url',
  'Fetch.continueRequest': 'url',
  'Network.continueInterceptedRequest': 'url',
};

/**
 * Why this CDP command may not be sent for the session, or null: at once for most, after a look at
 * the files for the few that name them.
 */
export function cdpRefusal(method: string, params: Record<string, unknown> | undefined, files: SessionFiles): string | null | Promise<string | null> {
  const domain = method.split('.')[0]!;
  if (REFUSED_DOMAINS.has(domain)) return `${method} is not allowed through the gateway: the ${domain} domain reaches the gateway's machine`;
  if (Object.hasOwn(REFUSED_METHODS, method)) return `${method} is not allowed through the gateway: ${REFUSED_METHODS[method]}`;
  const urlParam = Object.hasOwn(URL_PARAMS, method) ? URL_PARAMS[method]! : undefined;
  if (urlParam && typeof params?.[urlParam] === 'string') {
    const refused = navigationRefusal(params[urlParam] as string, files);
    if (refused) return `${method}: ${refused}`;
  }
  if ((method === 'Browser.setDownloadBehavior' || method === 'Page.setDownloadBehavior') && typeof params?.downloadPath === 'string') {
    return directoryRefusal(params.downloadPath, files).then((refused) => refused && `${method}: ${refused}`);
  }
  const paths = method === 'DOM.setFileInputFiles' ? params?.files : method === 'Input.dispatchDragEvent' ? (params?.data as { files?: unknown } | undefined)?.files : undefined;
  if (Array.isArray(paths) && paths.length > 0) {
    if (!paths.every((p) => typeof p === 'string')) return null; // the browser answers a malformed list
    return checkFilesForRawCommand(paths as string[], files).then(
      () => null,
      (e) => (e instanceof FileRefusal ? `${method}: ${e.message}` : Promise.reject(e)),
    );
  }
  return null;
}
