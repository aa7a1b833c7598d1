export type DetailView = 'text' | 'json' | 'hex' | 'fields';
