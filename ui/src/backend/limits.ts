// The constants the backend exports into the bindings (the engine's limits, New Topic's
// defaults, the menu's accelerators): the UI validates and matches keys with the engine's own
// numbers. Data only, no door to the backend: importing this starts nothing.

export {
  DEFAULT_KEY_TYPE,
  DEFAULT_MAX_MESSAGE_BYTES,
  DEFAULT_PARTITIONS,
  GROUP_PREFIX,
  KEY_INT_MAX,
  MAX_CHAR_WIDTH,
  MAX_FREE_KEY_BYTES,
  MAX_GROUP_NAME,
  MAX_LINE_BYTES,
  MAX_MESSAGE_BYTES_LIMIT,
  MAX_PAGE,
  MAX_PARTITIONS,
  MAX_PAYLOAD_SLICE,
  MAX_TOPIC_NAME,
  MENU_ACCELERATORS,
  PAYLOAD_PREVIEW_BYTES,
  ROW_WHOLE_BYTES,
} from './bindings';
