// Who asks: a principal owns the sessions it creates. The edge (src/server/auth.ts) learns it from
// a token; every room below the edge only needs to know what one is.

export interface Principal {
  name: string;
  /** Most sessions this principal may have at once (null: only the gateway's maximum). */
  maxSessions: number | null;
  /** May use the admin API and see every principal's sessions (`admin` in the token file). */
  admin: boolean;
  /** Its weight when principals wait for slots in turn (`share=N` in the token file; 1 by default). */
  share: number;
  /**
   * May reach the gateway machine's files (`files` in the token file): file: URLs and the
   * browser's own pages, file inputs from any directory (backends/policy/). Absent: no.
   */
  files?: boolean;
  /**
   * A Selenium Grid relay node (`relay` in the token file): it may open a session for the
   * principal its client proves (`wdgate:principal`, src/server/relay.ts) and drive the sessions
   * it opened so. Absent: no.
   */
  relay?: boolean;
}

/**
 * A loopback client without a token (the default: wdgate serves loopback only): the machine's own
 * user, an admin, who may reach the machine's files (a local suite opens file: fixtures, as with
 * chromedriver; its browsers still run as their own user when the gateway runs as root).
 */
export const LOCAL: Principal = Object.freeze({ name: 'local', maxSessions: null, admin: true, share: 1, files: true });

/** The tokenless loopback principal where the operator says loopback clients are not the machine's own user (`localFiles: false`: a Grid relay or a proxy on the same host). */
export const LOCAL_WITHOUT_FILES: Principal = Object.freeze({ ...LOCAL, files: false });

/**
 * A loopback client without a token where tokens are configured (and loopback needs none): the
 * same principal, but no admin, or any process of the machine could end every token's sessions;
 * and no files, or any process of the machine could read what the browsers' user can (other
 * principals' profiles).
 */
export const LOCAL_WITH_TOKENS: Principal = Object.freeze({ name: 'local', maxSessions: null, admin: false, share: 1 });
