import type { DeliveryWindow } from './product';

/** Delivery windows with their variations (tables `delivery_windows`, `delivery_window_variations`). */
export interface DeliveryWindowsRepository {
  find(externalId: string): Promise<DeliveryWindow | null>;
  list(): Promise<DeliveryWindow[]>;
  /** Writes the window and replaces its variations with the given ones. */
  save(window: DeliveryWindow): Promise<void>;
  setActiveIndexed(externalId: string, active: boolean): Promise<void>;
}
