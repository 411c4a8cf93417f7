// HTTPS settings are checked before listening: uWebSockets.js would otherwise start without
// TLS working and say nothing. A missing, unreadable or mismatched certificate or key is an
// error naming the file.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';

export class TlsSettingsError extends Error {}

function read(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new TlsSettingsError(`the ${what} ${file} cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/** Check that `certFile` holds a PEM certificate and `keyFile` (possibly the same file) its private key. */
export function checkTlsFiles(certFile: string, keyFile: string): void {
  const certText = read(certFile, 'certificate');
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(certText);
  } catch {
    throw new TlsSettingsError(`the certificate ${certFile} holds no PEM certificate`);
  }
  const keyText = keyFile === certFile ? certText : read(keyFile, 'private key');
  const keyPem = /-----BEGIN (?:RSA |EC |ENCRYPTED )?PRIVATE KEY-----[\s\S]+?-----END (?:RSA |EC |ENCRYPTED )?PRIVATE KEY-----/.exec(keyText)?.[0];
  if (!keyPem) {
    throw new TlsSettingsError(
      keyFile === certFile
        ? `the certificate ${certFile} holds no private key: add it to the file or name it with --certificate-key`
        : `the private key ${keyFile} holds no PEM private key`,
    );
  }
  let key;
  try {
    key = createPrivateKey(keyPem);
  } catch (e) {
    throw new TlsSettingsError(`the private key in ${keyFile} cannot be used: ${(e as Error).message}`);
  }
  if (!certificate.checkPrivateKey(key)) {
    throw new TlsSettingsError(`the private key in ${keyFile} does not belong to the certificate ${certFile}`);
  }
  if (Date.parse(certificate.validTo) < Date.now()) {
    throw new TlsSettingsError(`the certificate ${certFile} expired on ${certificate.validTo}`);
  }
}
