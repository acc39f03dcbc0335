import type { CartClient, SelectionDto } from '@commerce/cart-contracts';
import { DomainError } from '@commerce/shared-errors';
import { versionedCart } from './selection-answer-cache';

const selection = (id: string) => ({ id }) as SelectionDto;

describe('versionedCart: every change the edge asks for raises the selection version', () => {
  function setup(fail = false) {
    const raised: string[] = [];
    const order: string[] = [];
    const answer = async (what: string, value: unknown) => {
      order.push(what);
      if (fail) throw new DomainError('CART.REMOTE_ERROR', 'unavailable', { cart: 'unavailable (ETIMEDOUT)' });
      return value;
    };
    const cart = {
      createSelection: async () => selection('new'),
      getSelection: async () => selection('s1'),
      savedSelection: async () => selection('saved'),
      addItem: (id: string) => answer(`add ${id}`, selection(id)),
      changeSelection: (id: string) => answer(`change ${id}`, selection(id)),
      closeSelection: (id: string) => answer(`close ${id}`, undefined),
      claimSelection: (_customer: string, anonymous: string | null) => answer(`claim ${anonymous}`, selection('saved')),
    } as unknown as CartClient;
    const versioned = versionedCart(cart, {
      selectionChanged: async (id) => {
        order.push(`raise ${id}`);
        raised.push(id);
      },
    });
    return { versioned, raised, order };
  }

  it('raises after the cart answered, for changes, adds, closes and both selections of a claim; reads raise nothing', async () => {
    const { versioned, raised, order } = setup();
    await versioned.changeSelection('a', {});
    await versioned.addItem('b', {} as never);
    await versioned.closeSelection('c');
    await versioned.claimSelection('customer', 'anon');
    await versioned.claimSelection('customer', null);
    await versioned.getSelection('a');
    await versioned.savedSelection('customer');
    await versioned.createSelection({} as never);
    expect(raised).toEqual(['a', 'b', 'c', 'anon', 'saved', 'saved']);
    expect(order.slice(0, 2)).toEqual(['change a', 'raise a']);
  });

  it('raises when the call fails too (the change may have been made before the answer was lost)', async () => {
    const { versioned, raised } = setup(true);
    await expect(versioned.changeSelection('a', {})).rejects.toMatchObject({ kind: 'unavailable' });
    await expect(versioned.claimSelection('customer', 'anon')).rejects.toMatchObject({ kind: 'unavailable' });
    expect(raised).toEqual(['a', 'anon']);
  });
});
