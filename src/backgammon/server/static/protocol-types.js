// The wire formats the browser reads, as JSDoc types for `tsc --checkJs` (scripts/lint.sh): the
// table state of `protocol.state_to_wire`, the socket messages and the errors. The property names
// are checked against what the server sends by tests/server/test_js_types.py, so a field renamed
// on one side fails there, and a field the browser reads that is not here fails tsc.
// (docs/web-protocol.md describes each field.)

/** @typedef {"white" | "black"} Side */
/** @typedef {{ mine: number[], theirs: number[] }} Board */
/** @typedef {Record<string, any>} Rules */

/**
 * A roll's legal step sequences as a graph (protocol.move_graph; docs/web-protocol.md, "The move
 * graph"): node 0 is the start, each edge [from, to, child] a step in the mover's numbering (25 = the
 * bar, 0 = off), a node without edges a complete play; every path has `length` steps. The one click
 * model, clickplay.js, follows it on every board.
 * @typedef {object} MoveGraph
 * @property {number} length
 * @property {number[][][]} nodes
 */

/**
 * A legal play, once: its text and one order of its steps (protocol.plays_to_wire).
 * @typedef {object} PlayOption
 * @property {string} play
 * @property {number[][]} steps
 */

/**
 * A position set up for study (study.setup_to_wire): the analysis board's setup, a puzzle's position.
 * `move_graph` and `plays` (protocol.roll_moves) are null and [] without dice, and absent in an
 * analysis's copy of its setup.
 * @typedef {object} StudySetup
 * @property {number[]} mine
 * @property {number[]} theirs
 * @property {number[] | null} dice
 * @property {number} cube
 * @property {string} owner
 * @property {number} match_length
 * @property {number[]} score
 * @property {boolean} crawford
 * @property {boolean} jacoby
 * @property {number[]} pips
 * @property {string} position_id
 * @property {string} gnubg_id
 * @property {string | null} xgid
 * @property {MoveGraph | null} [move_graph]
 * @property {PlayOption[]} [plays]
 */

/**
 * One exercise of a lesson (study.lesson_to_wire): a play to make (`dice`; with a position, its
 * `move_graph` and `plays` for clicking) or a choice among `choices`.
 * @typedef {object} LessonExercise
 * @property {string} task
 * @property {string} prompt
 * @property {string[]} hints
 * @property {number[]} [mine]
 * @property {number[]} [theirs]
 * @property {string} [position_id]
 * @property {number[]} [dice]
 * @property {MoveGraph} [move_graph]
 * @property {PlayOption[]} [plays]
 * @property {string[]} [choices]
 */

/**
 * @typedef {object} TableInfo
 * @property {string} id
 * @property {"ai" | "human"} mode
 * @property {string | null} level
 * @property {Side | null} ai_seat
 * @property {"waiting" | "playing" | "over"} status
 * @property {Rules} rules
 * @property {Record<Side, string>} names
 * @property {Record<Side, boolean>} seated
 * @property {boolean} test_start
 * @property {string | null} rematch
 */

/**
 * @typedef {object} GameResult
 * @property {Side | null} winner
 * @property {number} points
 */

/**
 * @typedef {object} MatchInfo
 * @property {number} length
 * @property {Record<Side, number>} score
 * @property {boolean} crawford
 * @property {boolean} post_crawford
 * @property {boolean} over
 * @property {Side | null} winner
 * @property {Side | null} timeout
 * @property {Side | null} ended_by
 * @property {number} game_number
 * @property {GameResult | null} last_result
 */

/**
 * @typedef {object} Cube
 * @property {number} value
 * @property {Side | null} owner
 * @property {Side | null} offered_by
 * @property {boolean} enabled
 */

/**
 * @typedef {object} LastMove
 * @property {Side} player
 * @property {number[]} dice
 * @property {number[][]} steps
 * @property {string} [play]
 */

/**
 * @typedef {object} GameInfo
 * @property {string} phase
 * @property {Side | null} turn
 * @property {Side | null} on_roll
 * @property {number[] | null} dice
 * @property {Cube} cube
 * @property {string | null} resignation
 * @property {Board} board
 * @property {Record<Side, number>} pips
 * @property {Record<Side, number>} off
 * @property {string} position_id
 * @property {string | null} xgid
 * @property {string | null} match_id
 * @property {GameResult | null} result
 * @property {string} description
 * @property {number[] | null} last_opening
 * @property {LastMove | null} last_move
 */

/**
 * @typedef {object} Clock
 * @property {number} minutes
 * @property {number} delay
 * @property {Record<Side, number>} remaining
 * @property {Side | null} running
 * @property {number} elapsed
 */

/**
 * @typedef {object} TableState
 * @property {TableInfo} table
 * @property {number} version
 * @property {Side | null} you
 * @property {Side} view
 * @property {MatchInfo} match
 * @property {GameInfo} game
 * @property {string[]} allowed
 * @property {MoveGraph | null} move_graph
 * @property {number} plays
 * @property {Record<string, number> | null} resign_points
 * @property {Clock | null} clock
 * @property {Record<string, any>} present
 * @property {Record<string, any>} fair_dice
 */

/**
 * @typedef {object} HintPlay
 * @property {string} play
 * @property {number[][]} steps
 * @property {string} position_id
 * @property {number} [equity]
 * @property {number} [win]
 * @property {number} [gammon]
 * @property {number} [plies]
 * @property {string} [kind]
 * @property {string} label
 * @property {number} [mwc]
 * @property {number} [score]
 */

/**
 * @typedef {object} HintMessage
 * @property {"hint"} type
 * @property {"engine" | "heuristic"} source
 * @property {HintPlay[]} plays
 * @property {number[]} pips
 */

/**
 * A chouette table as one seat sees it (chouette_tables.state_to_wire). A table still waiting for
 * players sends only the fields up to `revealed_dice`; `move_graph` and `plays` are the roll's for the
 * seat that may move or suggest, else null and [].
 * @typedef {object} ChouetteState
 * @property {string} id
 * @property {"chouette"} mode
 * @property {string} status
 * @property {number} version
 * @property {string | null} you
 * @property {{ name: string | null, bot: string | null, open: boolean }[]} seats
 * @property {Record<string, any> | null} fair_dice
 * @property {Record<string, any>[]} revealed_dice
 * @property {string} [box]
 * @property {string | null} [captain]
 * @property {string[]} [team]
 * @property {string} [stage]
 * @property {string[]} [pending]
 * @property {string[]} [to_act]
 * @property {Record<string, any>[]} [players]
 * @property {Side | null} [side]
 * @property {Side} [view]
 * @property {string[]} [allowed]
 * @property {MoveGraph | null} [move_graph]
 * @property {PlayOption[]} [plays]
 * @property {Record<string, any>[]} [log]
 * @property {Record<string, any>[]} [suggestions]
 * @property {ChouetteGame} [game]
 * @property {Record<string, any>[]} [games]
 */

/**
 * The chouette's game in play (its board seen by the viewer's side).
 * @typedef {object} ChouetteGame
 * @property {number} number
 * @property {string} phase
 * @property {Side | null} turn
 * @property {number[] | null} dice
 * @property {{ value: number, owner: Side | null, offered_by: Side | null }} cube
 * @property {Board} board
 * @property {Record<Side, number>} pips
 * @property {string} description
 */

/**
 * An error as the browser words it (i18n.js errorText): a socket error, or an HTTP error's body
 * with its status.
 * @typedef {object} ServerError
 * @property {number} [status]
 * @property {string} [code]
 * @property {Record<string, any>} [params]
 * @property {string} [message]
 */

export {};
