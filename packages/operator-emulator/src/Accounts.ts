/**
 * Business accounts (WABAs) and their registered phone numbers.
 * A WABA comes into being on first use of `/{waba_id}/...`; a phone number exists only once
 * registered through `POST /_emulator/accounts`.
 */
import { HealthStore } from "./Health.js"

/** A registered business phone number. */
export interface PhoneNumber {
  readonly id: string
  readonly wabaId: string
  readonly displayPhoneNumber: string
  readonly verifiedName: string
  /** Its WhatsApp commerce settings (GRAPH_API.md §8.1); absent: the operator's defaults. */
  readonly commerce?: CommerceSettings
}

/** A phone number's commerce settings, as `whatsapp_commerce_settings` shows them. */
export interface CommerceSettings {
  readonly isCartEnabled: boolean
  readonly isCatalogVisible: boolean
}

/** What a number has before anyone sets them: the cart on, the catalog not shown. */
export const DEFAULT_COMMERCE: CommerceSettings = { isCartEnabled: true, isCatalogVisible: false }

/** What the state file keeps of the accounts. */
export interface AccountsSnapshot {
  readonly wabas: ReadonlyArray<string>
  readonly phoneNumbers: ReadonlyArray<PhoneNumber>
}

export class Accounts {
  /** The messaging health of numbers, WABAs, businesses and the app (`health_status`). */
  readonly health = new HealthStore()
  private readonly wabas = new Set<string>()
  private readonly phones = new Map<string, PhoneNumber>()

  /** Makes sure the WABA exists. */
  ensureWaba(wabaId: string): void {
    this.wabas.add(wabaId)
  }

  wabaIds(): ReadonlyArray<string> {
    return [...this.wabas]
  }

  hasWaba(wabaId: string): boolean {
    return this.wabas.has(wabaId)
  }

  /**
   * Registers or updates a phone number (moving it to `wabaId` if it was elsewhere). Idempotent:
   * a registration that names no commerce settings keeps the number's (a restarted server
   * registers its numbers again before its first call; that must not undo what it set).
   */
  upsertPhoneNumber(phone: PhoneNumber): void {
    this.ensureWaba(phone.wabaId)
    const commerce = phone.commerce ?? this.phones.get(phone.id)?.commerce
    this.phones.set(phone.id, commerce === undefined ? phone : { ...phone, commerce })
  }

  /** Changes the commerce settings of a registered number (fields left out stay). */
  setCommerce(id: string, patch: Partial<CommerceSettings>): CommerceSettings | undefined {
    const phone = this.phones.get(id)
    if (phone === undefined) return undefined
    const commerce = { ...(phone.commerce ?? DEFAULT_COMMERCE), ...patch }
    this.phones.set(id, { ...phone, commerce })
    return commerce
  }

  phoneNumber(id: string): PhoneNumber | undefined {
    return this.phones.get(id)
  }

  /** The phone numbers of one WABA, in registration order. */
  phoneNumbersOf(wabaId: string): PhoneNumber[] {
    return [...this.phones.values()].filter((phone) => phone.wabaId === wabaId)
  }

  snapshot(): AccountsSnapshot {
    return { wabas: [...this.wabas], phoneNumbers: [...this.phones.values()] }
  }

  restore(snapshot: AccountsSnapshot): void {
    for (const waba of snapshot.wabas) this.wabas.add(waba)
    for (const phone of snapshot.phoneNumbers) this.upsertPhoneNumber(phone)
  }
}
