/**
 * The order statuses the ERP and the order service share, with the description the checkout API shows:
 * the SOAP order schema refuses any other, and the order service stores and answers these.
 */
export const ORDER_STATUS_DESCRIPTIONS: Readonly<Record<string, string>> = {
  untouched: 'Pending',
  confirmed: 'Confirmed',
  processing: 'Processing',
  shipped: 'Shipped',
  completed: 'Completed',
  archived: 'Archived',
  cancelled: 'Cancelled',
};
