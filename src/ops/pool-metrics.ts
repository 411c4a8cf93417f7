// The pool's preparation ahead, in /metrics (read from the pool's stats when scraped): contexts
// being prepared, how many each key keeps prepared and the New Session rate it prepares for, and
// New Session's wait for a context as a histogram. (Contexts prepared and ready are
// wdgate_pool_contexts{state="free"}.)
import client from 'prom-client';
import type { KeyStats } from '../pool/pool.ts';

const labelsOf = (stats: KeyStats) => ({ backend: stats.backend, key: JSON.stringify(stats.key) });

export function registerPoolMetrics(registry: client.Registry, pool: () => KeyStats[]): void {
  const registers = [registry];
  const perKey = (name: string, help: string, value: (stats: KeyStats) => number) =>
    new client.Gauge({
      name,
      help,
      labelNames: ['backend', 'key'],
      registers,
      collect() {
        this.reset();
        for (const stats of pool()) this.set(labelsOf(stats), value(stats));
      },
    });
  perKey('wdgate_pool_contexts_preparing', 'Browser contexts being prepared now, per pool key', (s) => s.preparing);
  perKey('wdgate_pool_prepared_target', 'Browser contexts a pool key keeps prepared or in preparation now: its baseline (minWarm), or more for the recent New Session rate', (s) => s.target);
  perKey('wdgate_pool_new_session_rate', 'New Sessions per second a pool key prepares for (exponentially weighted over about 10 s)', (s) => s.rate);
  perKey('wdgate_pool_prepare_seconds', 'How long a browser context took to prepare, recently, per pool key', (s) => s.prepareMs / 1000);

  // A histogram the pool keeps itself (cumulative since the key was made): served as prom-client's own are.
  const name = 'wdgate_pool_lease_wait_seconds';
  const help = "New Session's wait for a browser context from the pool (0: one was prepared), per pool key";
  registry.registerMetric({
    name,
    help,
    type: 'histogram',
    aggregator: 'sum',
    reset() {},
    async get() {
      const values = pool().flatMap((stats) => {
        const labels = labelsOf(stats);
        const { buckets, count, sumSeconds } = stats.leaseWait;
        return [
          ...buckets.map((b) => ({ metricName: `${name}_bucket`, labels: { ...labels, le: b.le }, value: b.count })),
          { metricName: `${name}_bucket`, labels: { ...labels, le: '+Inf' }, value: count },
          { metricName: `${name}_sum`, labels, value: sumSeconds },
          { metricName: `${name}_count`, labels, value: count },
        ];
      });
      return { name, help, type: 'histogram', aggregator: 'sum', values };
    },
  } as unknown as client.Metric);
}
