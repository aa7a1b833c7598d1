// The Connect to Kafka dialog's state: the form, the request it makes (the
// password travels with the request only; it is never kept in the UI's
// storage), the test's answer in words, and the saved connections.

import { backend } from '../backend';
import type { ConnectionSettings, ConnectionTest, ConnectRequest, SaslMechanismDto, SavedConnection } from '../backend';

export const MECHANISMS: SaslMechanismDto[] = ['SCRAM-SHA-256', 'SCRAM-SHA-512', 'PLAIN'];

/** What the form says about a test's or a connect's answer. */
export type Outcome = { ok: boolean; title: string; detail: string; kind: string };

/** A connection test's answer in the dialog's words. */
export function outcomeOf(t: ConnectionTest): Outcome {
  if (t.failure) return { ok: false, title: capitalise(t.failure.words), detail: `${t.failure.broker}: ${t.failure.detail}`, kind: t.failure.kind };
  const o = t.overview;
  if (!o) return { ok: false, title: 'No answer', detail: '', kind: 'other' };
  const topics = `${o.topics} topic${o.topics === 1 ? '' : 's'}`;
  const brokers = `${o.brokers} broker${o.brokers === 1 ? '' : 's'}`;
  return { ok: true, title: 'Connected', detail: `cluster ${o.cluster_id}: ${brokers}, ${topics}`, kind: 'ok' };
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** A problem with the form before anything is sent, or null. */
export function formProblem(f: ConnectForm): string | null {
  const servers = f.bootstrap.split(',').map((s) => s.trim()).filter(Boolean);
  if (servers.length === 0) return 'Give the bootstrap servers: HOST:PORT, several separated by commas.';
  for (const s of servers) {
    const i = s.lastIndexOf(':');
    const port = Number(s.slice(i + 1));
    if (i <= 0 || !/^\d+$/.test(s.slice(i + 1)) || port < 1 || port > 65535) return `${s} is not HOST:PORT (the port a number from 1 to 65535).`;
  }
  if (f.tls && (f.certFile.trim() === '') !== (f.keyFile.trim() === '')) return 'A client certificate needs both its certificate file and its key file.';
  if (f.sasl && f.username.trim() === '') return 'SASL needs a user name.';
  if (f.sasl && f.password === '' && !f.savedPassword) return 'SASL needs the user’s password.';
  return null;
}

export class ConnectForm {
  open = $state(false);
  name = $state('');
  bootstrap = $state('');
  tls = $state(false);
  caFile = $state('');
  certFile = $state('');
  keyFile = $state('');
  sasl = $state(false);
  mechanism = $state<SaslMechanismDto>('SCRAM-SHA-256');
  username = $state('');
  password = $state('');
  save = $state(true);
  /** The saved connection this form was filled from (its keychain password is used when none is typed). */
  savedId = $state<string | null>(null);
  savedPassword = $state(false);
  busy = $state<'test' | 'connect' | null>(null);
  outcome = $state<Outcome | null>(null);
  /** Saving worked but the password could not go to the keychain: why. */
  keychainProblem = $state<string | null>(null);
  saved = $state<SavedConnection[]>([]);
  /** Safe browse: the cluster's window writes nothing (refused by the backend too). */
  readOnly = $state(false);

  problem = $derived(formProblem(this));

  show(from: SavedConnection | null = null): void {
    this.reset();
    if (from) this.fill(from);
    this.open = true;
  }

  close(): void {
    this.open = false;
    // The password is not kept once the dialog closes.
    this.password = '';
  }

  reset(): void {
    this.name = '';
    this.bootstrap = '';
    this.tls = false;
    this.caFile = this.certFile = this.keyFile = '';
    this.sasl = false;
    this.mechanism = 'SCRAM-SHA-256';
    this.username = this.password = '';
    this.save = true;
    this.readOnly = false;
    this.savedId = null;
    this.savedPassword = false;
    this.outcome = null;
    this.keychainProblem = null;
  }

  fill(c: SavedConnection): void {
    const s = c.settings;
    this.name = s.name;
    this.bootstrap = s.bootstrap;
    this.tls = s.tls !== null;
    this.caFile = s.tls?.ca_file ?? '';
    this.certFile = s.tls?.cert_file ?? '';
    this.keyFile = s.tls?.key_file ?? '';
    this.sasl = s.sasl !== null;
    this.mechanism = s.sasl?.mechanism ?? 'SCRAM-SHA-256';
    this.username = s.sasl?.username ?? '';
    this.readOnly = s.read_only ?? false;
    this.savedId = c.id;
    this.savedPassword = c.password_saved;
  }

  settings(): ConnectionSettings {
    const file = (s: string) => (s.trim() === '' ? null : s.trim());
    return {
      name: this.name.trim(),
      bootstrap: this.bootstrap.split(',').map((s) => s.trim()).filter(Boolean).join(','),
      tls: this.tls ? { ca_file: file(this.caFile), cert_file: file(this.certFile), key_file: file(this.keyFile) } : null,
      sasl: this.sasl ? { mechanism: this.mechanism, username: this.username.trim() } : null,
      read_only: this.readOnly,
    };
  }

  request(): ConnectRequest {
    return { settings: this.settings(), password: this.sasl && this.password !== '' ? this.password : null, save: this.save, saved: this.savedId };
  }

  async test(): Promise<void> {
    if (this.problem) {
      this.outcome = { ok: false, title: 'Not yet', detail: this.problem, kind: 'form' };
      return;
    }
    this.busy = 'test';
    this.outcome = null;
    const r = await backend.testConnection(this.request());
    this.busy = null;
    this.outcome = r.status === 'ok' ? outcomeOf(r.data) : { ok: false, title: 'Could not test the connection', detail: r.error.message, kind: r.error.code };
  }

  /** Connect: the cluster opens in a window of its own; the dialog closes unless it failed. */
  async connect(): Promise<boolean> {
    if (this.problem) {
      this.outcome = { ok: false, title: 'Not yet', detail: this.problem, kind: 'form' };
      return false;
    }
    this.busy = 'connect';
    this.outcome = null;
    const r = await backend.connectCluster(this.request());
    this.busy = null;
    if (r.status === 'error') {
      this.outcome = { ok: false, title: 'Could not connect', detail: r.error.message, kind: r.error.code };
      return false;
    }
    this.outcome = outcomeOf(r.data);
    this.keychainProblem = r.data.keychain_problem;
    await this.loadSaved();
    if (!this.outcome.ok || this.keychainProblem) return false;
    this.close();
    return true;
  }

  async loadSaved(): Promise<void> {
    const r = await backend.savedConnections();
    this.saved = r.status === 'ok' ? r.data : [];
  }

  async forget(id: string): Promise<void> {
    const r = await backend.forgetConnection(id);
    if (r.status === 'ok') this.saved = r.data;
  }

  /** Open a saved connection directly (its password from the keychain); the dialog when it needs more. */
  async openSaved(c: SavedConnection): Promise<void> {
    this.show(c);
    this.save = false;
    if (c.settings.sasl && !c.password_saved) return; // the password is asked for
    if (await this.connect()) return;
    this.open = true;
  }
}

export const connectForm = new ConnectForm();
