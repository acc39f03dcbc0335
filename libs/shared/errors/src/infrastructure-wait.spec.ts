import { isInfrastructureWait } from './infrastructure-wait';

describe('isInfrastructureWait', () => {
  const wait = () => Object.assign(new Error('no connection of the pool in time'), { infrastructureWait: true as const });

  it('is true of an error marked as an infrastructure wait, and of one caused by such an error up to five deep', () => {
    expect(isInfrastructureWait(wait())).toBe(true);
    let wrapped: Error = wait();
    for (let depth = 1; depth < 5; depth++) wrapped = new Error(`wrapped ${depth}`, { cause: wrapped });
    expect(isInfrastructureWait(wrapped)).toBe(true);
  });

  it('is false of any other error, a cause too deep to follow, a mark that is not true, and what is not an error', () => {
    expect(isInfrastructureWait(new Error('duplicate key'))).toBe(false);
    let deep: Error = wait();
    for (let depth = 1; depth <= 5; depth++) deep = new Error(`wrapped ${depth}`, { cause: deep });
    expect(isInfrastructureWait(deep)).toBe(false);
    expect(isInfrastructureWait(Object.assign(new Error('x'), { infrastructureWait: 'yes' }))).toBe(false);
    expect(isInfrastructureWait(undefined)).toBe(false);
    expect(isInfrastructureWait('pool timeout')).toBe(false);
  });
});
