/** ISO 8601 with an explicit offset (`+00:00`, not `Z`), to the second. */
export const offsetDate = (iso: string): string => {
  const date = new Date(iso);
  const at = Number.isNaN(date.getTime()) ? new Date() : date;
  return at.toISOString().replace(/\.\d{3}Z$/, '+00:00');
};
