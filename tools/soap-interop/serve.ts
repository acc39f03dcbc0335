// The all-in-one on embedded adapters (PGlite in memory, in-memory bus, no demo catalog), with SOAP
// changes echoed into the change-event feed, for the zeep interop check. Prints one JSON line
// {"url": …, "wsdl": …} once it listens; stops on SIGTERM.
import { createLogger } from '@commerce/shared-logging';
import { AllInOneConfigSchema } from '../../apps/all-in-one/src/config';
import { startAllInOne } from '../../apps/all-in-one/src/all-in-one';

async function main() {
  const config = AllInOneConfigSchema.parse({
    DATABASE_URL: 'pglite://memory',
    DEMO_CATALOG: '',
    SOAP_ECHO_EVENTS: 'true',
    PORT: '0',
    LOG_LEVEL: process.env['LOG_LEVEL'] ?? 'silent',
  });
  const running = await startAllInOne(config, createLogger('soap-interop', config.LOG_LEVEL), null);
  const soap = `${running.url}/ams/system/service/module/soap/api`;
  console.log(JSON.stringify({ url: soap, wsdl: `${soap}?wsdl` }));
  process.on('SIGTERM', () => void running.close().then(() => process.exit(0)));
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
