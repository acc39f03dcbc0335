import { readFileSync } from 'node:fs';
import { runService } from '@commerce/shared-http';
import { loadConfig } from '@commerce/shared-config';
import { createLogger, stdoutDestination } from '@commerce/shared-logging';
import { parseDemoCatalog } from '@commerce/catalog-adapters';
import { AllInOneConfigSchema } from './config';
import { startAllInOne } from './all-in-one';

// `npm start`: every service in one process on the embedded adapters, a demo shop on localhost.
runService('all-in-one', async () => {
  const config = loadConfig(AllInOneConfigSchema);
  const logger = createLogger('all-in-one', config.LOG_LEVEL);
  const demo = config.DEMO_CATALOG ? parseDemoCatalog(JSON.parse(readFileSync(config.DEMO_CATALOG, 'utf8'))) : null;
  const running = await startAllInOne(config, logger, demo);
  const base = `http://${config.HOST === '0.0.0.0' ? 'localhost' : config.HOST}:${running.port}`;
  logger.info(
    {
      ...(running.storefront ? { shop: `${base}/` } : {}),
      checkoutApi: `${base}/api/checkout/`,
      soapApi: `${base}/ams/system/service/module/soap/api`,
      wsdl: `${base}/ams/system/service/module/soap/api?wsdl`,
    },
    'demo shop ready',
  );
  // Through the log's destination, so a reader that went away costs this text and nothing more.
  stdoutDestination().write(
    [
      '',
      `  Demo shop is running (${running.engines}).`,
      running.storefront
        ? `  Shop         : ${base}/   (open it in a browser)`
        : `  Shop         : not built (npm start builds it; or: npx tsx tools/storefront/build.ts)`,
      `  Checkout API : ${base}/api/checkout/   (try: curl ${base}/api/checkout/selection)`,
      `  OpenAPI      : ${base}/api/checkout/openapi.json`,
      `  SOAP API     : ${base}/ams/system/service/module/soap/api   (user demo / demo-secret)`,
      `  WSDL         : ${base}/ams/system/service/module/soap/api?wsdl`,
      `  Health       : ${base}/healthz  ${base}/readyz  ${base}/metrics`,
      '',
      '',
    ].join('\n'),
  );
  return running;
});
