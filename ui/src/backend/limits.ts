// The constants the backend exports into the bindings (the engine's limits, New Topic's
// defaults, the menu's accelerators): the UI validates and matches keys with the engine's own
// numbers. Data only, no door to the backend: importing this starts nothing.

export {
  DEFAULT_KEY_TYPE,
  DEFAULT_PARTITIONS,
  GROUP_PREFIX,
  KEY_INT_MAX,
  MAX_CHAR_WIDTH,
  MAX_GROUP_NAME,
  MAX_LINE_BYTES,
  MAX_PAGE,
  MAX_PARTITIONS,
  MAX_TOPIC_NAME,
  MENU_ACCELERATORS,
} from './bindings';
