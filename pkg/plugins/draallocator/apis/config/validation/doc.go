// Package validation checks internal DRAAllocator plugin args.
//
// Design and invariants:
//
//   - Validation runs on internal, already defaulted args; it never
//     defaults or mutates them.
//   - All problems are collected into one field.ErrorList and returned as an
//     aggregate, so a user sees every mistake at once. Field paths use the
//     JSON (v1) names, e.g. "filterTimeout" or "scoringStrategy.type",
//     relative to the path the caller passes in.
//   - A nil error means the plugin can use the args as they are.
package validation
