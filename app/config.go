package app

import (
	"log/slog"
	"time"

	"github.com/kg-memory/kg/app/capture"
	"github.com/kg-memory/kg/app/history"
	"github.com/kg-memory/kg/domain"
	"github.com/kg-memory/kg/domain/compaction"
	"github.com/kg-memory/kg/domain/secretscreen"
	"github.com/kg-memory/kg/ports"
)

// Config holds the settings of the app layer.
type Config struct {
	Policy     compaction.Policy
	SessionTTL domain.Micros // sessions expire after this long without activity (KG_SESSION_TTL)
	// BoundSessionTTL is how long a session bound to a Claude session is
	// kept after its last activity, past SessionTTL, so that a resume of its
	// conversation revives it (docs/design/hooks.md#session-binding).
	BoundSessionTTL     domain.Micros
	MaxSessions         int           // live sessions at most; one more expires the least recently active
	MaintenanceInterval time.Duration // KG_SAVE_INTERVAL
	// PreloadChars is the most characters a session start's preload
	// context holds (KG_PRELOAD_CHARS, docs/design/hooks.md#the-preload).
	PreloadChars int
	// IdleUnload is how long a project graph stays loaded without a
	// request; the maintenance tick then unloads it, once all it holds is
	// durable, and the next request loads it again. Negative: never. The
	// user graph is never unloaded.
	IdleUnload time.Duration
	// MaxLoadedNodes is the most nodes the loaded project graphs hold
	// together (KG_MAX_LOADED_NODES); a load past it unloads the project
	// graphs least recently used, once all each holds is durable
	// (docs/design/storage.md#unloading). 0: no bound. The user graph is
	// not counted.
	MaxLoadedNodes int
	// Secrets is what a write that holds a credential does (KG_SECRETS,
	// docs/design/trust.md#secrets); empty means block.
	Secrets secretscreen.Mode
	// HistoryDays is how long the change log keeps an entry
	// (KG_HISTORY_DAYS, docs/design/trust.md#pruning); the maintenance tick
	// prunes older ones and no read returns them.
	HistoryDays int
	// StaleFilesPerTick is the most recorded files one maintenance tick
	// reads for the staleness check (docs/design/trust.md#staleness).
	StaleFilesPerTick int
	// Capture is whether a stop may ask the model to record what it
	// learned (KG_CAPTURE, docs/design/hooks.md#capture-before-forgetting);
	// empty means ask.
	Capture capture.Mode
}

// Defaults of the app settings.
const (
	DefaultSessionTTL          = 24 * 3600 * domain.Second
	DefaultBoundSessionTTL     = 30 * domain.Day
	DefaultMaxSessions         = 10_000
	DefaultMaintenanceInterval = 30 * time.Second
	DefaultIdleUnload          = 30 * time.Minute
	// DefaultMaxLoadedNodes keeps a server's loaded graphs near 100 MB
	// (about 1 KB a node with its search index;
	// docs/performance.md#team-scale).
	DefaultMaxLoadedNodes = 100_000
	DefaultPreloadChars   = 9000
	// MinPreloadChars is the least KG_PRELOAD_CHARS accepts: the header and
	// the section titles must fit with room for nodes.
	MinPreloadChars = 1000
	// MaxPreloadChars is the most KG_PRELOAD_CHARS accepts: Claude Code
	// puts a hook's context before the model whole only up to 10,000
	// characters, and shows a larger one as a 2 KB preview of a file, while
	// kg would mark every node of it seen (docs/design/hooks.md#the-preload);
	// the rest of the 10,000 is a margin for the hook's own lines.
	MaxPreloadChars = 9500
	// DefaultStaleFilesPerTick bounds the files one maintenance tick reads
	// (docs/design/trust.md#staleness).
	DefaultStaleFilesPerTick = 2000
	// DefaultHistoryDays is KG_HISTORY_DAYS's default.
	DefaultHistoryDays = history.DefaultDays
)

// DefaultConfig returns the defaults of the spec.
func DefaultConfig() Config {
	return Config{
		Policy:              compaction.DefaultPolicy(),
		SessionTTL:          DefaultSessionTTL,
		BoundSessionTTL:     DefaultBoundSessionTTL,
		MaxSessions:         DefaultMaxSessions,
		MaintenanceInterval: DefaultMaintenanceInterval,
		IdleUnload:          DefaultIdleUnload,
		MaxLoadedNodes:      DefaultMaxLoadedNodes,
		PreloadChars:        DefaultPreloadChars,
		Secrets:             secretscreen.Block,
		HistoryDays:         DefaultHistoryDays,
		StaleFilesPerTick:   DefaultStaleFilesPerTick,
		Capture:             capture.Ask,
	}
}

// Deps are the ports the app talks out through.
type Deps struct {
	Graphs   ports.GraphRepository
	Sessions ports.SessionRepository
	Clock    ports.Clock
	Events   ports.Events
	Paths    ports.PathResolver
	// ProjectKeys, in team mode, finds a project's key in its folder
	// (.kg/project, the git origin); nil finds none.
	ProjectKeys ports.ProjectKeys
	Log         *slog.Logger
	// Metrics is told of each write batch, compaction run and new session;
	// nil records nothing.
	Metrics ports.Metrics
	// Transcripts reads Claude Code transcripts for the session a resumed
	// conversation used (docs/design/hooks.md#session-binding); nil reads
	// none.
	Transcripts ports.Transcripts
	// Files reads project files for the staleness check
	// (docs/design/trust.md#staleness); nil reads none.
	Files ports.FileHasher
}

// The use cases are the exported methods of Service, one per file beside
// this one, each documented with the tool or route it serves: `go doc -all
// ./app Service` lists them from the code, so no list here can drift from
// it (TestEveryUseCaseHasACaller checks that something outside app calls
// each).
//
// Every error is a *domain.Error (or wraps one) whose Kind the adapters map
// in one table; anything else is a bug and maps to internal.
