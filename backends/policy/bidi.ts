// What a client's WebDriver BiDi commands may ask of the machine (the same rules as the classic
// commands and CDP): navigations and a request's new URL stay on the web, file inputs get the
// session's own files, downloads go into its own folder, a user context's PAC script is fetched
// from the web, an extension from a path is the machine's, and raw CDP is checked as CDP.
import { cdpRefusal } from './cdp.ts';
import { checkFilesForRawCommand, directoryRefusal, FileRefusal, type SessionFiles } from './files.ts';
import { fetchRefusal, navigationRefusal } from './urls.ts';

const asObject = (v: unknown): Record<string, unknown> | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);

/**
 * Why this BiDi command may not be sent for the session, or null. Malformed parameters are left to
 * the engine, which answers them as it does (invalid argument).
 */
export function bidiRefusal(method: string, params: Record<string, unknown>, files: SessionFiles): string | null | Promise<string | null> {
  switch (method) {
    case 'browsingContext.navigate':
    case 'network.continueRequest':
      return typeof params.url === 'string' ? navigationRefusal(params.url, files) : null;
    case 'input.setFiles': {
      const paths = params.files;
      if (!Array.isArray(paths) || paths.length === 0 || !paths.every((p) => typeof p === 'string')) return null;
      return checkFilesForRawCommand(paths as string[], files).then(
        () => null,
        (e) => (e instanceof FileRefusal ? e.message : Promise.reject(e)),
      );
    }
    case 'browser.setDownloadBehavior': {
      const folder = asObject(params.downloadBehavior)?.destinationFolder;
      return typeof folder === 'string' ? directoryRefusal(folder, files) : null;
    }
    case 'browser.createUserContext': {
      const pac = asObject(params.proxy)?.proxyAutoconfigUrl;
      return typeof pac === 'string' ? fetchRefusal(pac, files) : null;
    }
    case 'webExtension.install': {
      const data = asObject(params.extensionData);
      if ((data?.type === 'path' || data?.type === 'archivePath') && typeof data.path === 'string') {
        return checkFilesForRawCommand([data.path], files).then(
          () => null,
          (e) => (e instanceof FileRefusal ? `an extension from a path: ${e.message}` : Promise.reject(e)),
        );
      }
      return null;
    }
    case 'goog:cdp.sendCommand':
    case 'cdp.sendCommand':
      return typeof params.method === 'string' ? cdpRefusal(params.method, asObject(params.params), files) : null;
    default:
      return null;
  }
}
