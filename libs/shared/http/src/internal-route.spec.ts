import { answerOrNotFound } from './internal-route';

// The internal routes' "nothing there" (account's customer, cart's selection and saved selection, order's order):
// a bare 404 naming what is missing, which the services' HTTP clients read as null.
describe('answerOrNotFound', () => {
  const answered = (value: unknown) => {
    const ctx = { status: 200, body: undefined as unknown };
    answerOrNotFound(ctx, value, 'selection');
    return ctx;
  };

  it('answers the value as the body', () => {
    expect(answered({ id: 's1' })).toEqual({ status: 200, body: { id: 's1' } });
  });

  it('answers null and undefined as a 404 without a code', () => {
    for (const nothing of [null, undefined])
      expect(answered(nothing)).toEqual({ status: 404, body: { errors: { selection: 'not found' } } });
  });
});
