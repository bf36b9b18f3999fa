package main

import (
	"fmt"
	"os/exec"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/kg-memory/kg/cmd/kg/internal/apiclient"
	"github.com/kg-memory/kg/cmd/kg/internal/config"
	"github.com/kg-memory/kg/cmd/kg/internal/hookagent"
	"github.com/kg-memory/kg/cmd/kg/internal/install"
)

// newInstallCommand is `kg install claude-code [--dry-run|--uninstall]`.
func newInstallCommand(e env) *cobra.Command {
	c := &cobra.Command{
		Use:   "install [claude-code|codex|gemini]",
		Short: "connect an agent to kg: install claude-code, codex or gemini; alone, what it finds and would change",
		Args:  cobra.ArbitraryArgs,
	}
	c.AddCommand(newInstallClaudeCodeCommand(e), newInstallCodexCommand(e), newInstallGeminiCommand(e))
	c.RunE = func(c *cobra.Command, args []string) error { return listInstallable(c, e, args) }
	return c
}

func newInstallClaudeCodeCommand(e env) *cobra.Command {
	var dryRun, uninstall bool
	c := &cobra.Command{
		Use:   "claude-code [--dry-run|--uninstall]",
		Short: "add kg's hooks and MCP server to Claude Code's user settings (or take them out)",
		Long: "Merges into ~/.claude/settings.json the SessionStart, UserPromptSubmit and PostToolUse hooks that run\n" +
			"this kg's `kg hook`, and into ~/.claude.json the MCP server \"kg\" that runs this kg's `kg mcp`, which\n" +
			"starts the server when none answers. Every other setting is kept; running it again changes nothing.\n" +
			"It prints each change first; --dry-run prints them and writes nothing. --uninstall removes only what\n" +
			"it added: the hooks that run `kg hook` and the \"kg\" server if it is one kg install wrote.",
		Args: exactArgs(),
	}
	c.Flags().BoolVar(&dryRun, "dry-run", false, "print the changes, write nothing")
	c.Flags().BoolVar(&uninstall, "uninstall", false, "remove kg's hooks and MCP server from Claude Code's settings")
	settings := bindSettings(c.Flags(), e.home)
	c.RunE = func(c *cobra.Command, _ []string) error {
		cfg, err := commandConfig(e, settings)
		if err != nil {
			return err
		}
		home, err := e.home()
		if err != nil {
			return fmt.Errorf("find the home folder: %w", err)
		}
		exe, err := e.executable()
		if err != nil {
			return fmt.Errorf("find the kg binary the hooks will run: %w", err)
		}
		todo, notes, err := install.PlanEdits(install.ClaudeEdits(home, exe, claudeMCPEntry(exe, cfg), legacyClaudeMCPEntry(cfg), uninstall))
		if err != nil {
			return err
		}
		return install.ApplyEdits(e.stdout, todo, notes, dryRun, uninstall)
	}
	return c
}

// claudeMCPEntry is the MCP server install writes for Claude Code: this kg
// run as `kg mcp`, a stdio bridge that starts the server when none answers,
// so that a session started before any server has kg's tools (Claude Code
// connects at its start, before any hook runs; decision 0092). It carries
// the address install was configured with, as the http entry it replaces
// did, and the token in the entry's environment, never on a command line.
func claudeMCPEntry(exe string, cfg config.Config) map[string]any {
	args := []any{"mcp"}
	for _, s := range settings(nil) {
		if (s.Flag == "host" || s.Flag == "port") && s.Show(cfg) != s.Def {
			args = append(args, "--"+s.Flag+"="+s.Show(cfg))
		}
	}
	entry := map[string]any{"type": "stdio", "command": exe, "args": args}
	if cfg.AuthToken != "" {
		entry["env"] = map[string]any{"KG_AUTH_TOKEN": cfg.AuthToken}
	}
	return entry
}

// legacyClaudeMCPEntry is the entry kg install wrote before decision 0092:
// the server's URL, which gives no tools while no server runs.
func legacyClaudeMCPEntry(cfg config.Config) map[string]any {
	entry := map[string]any{"type": "http", "url": "http://" + apiclient.DialAddr(cfg.Addr()) + "/"}
	if cfg.AuthToken != "" {
		entry["headers"] = map[string]any{"Authorization": "Bearer " + cfg.AuthToken}
	}
	return entry
}

func newInstallCodexCommand(e env) *cobra.Command {
	var dryRun, uninstall bool
	c := &cobra.Command{
		Use:   "codex [--dry-run|--uninstall]",
		Short: "add kg's hooks and MCP server to Codex's user settings (or take them out)",
		Long: "Merges into ~/.codex/hooks.json (under $CODEX_HOME when it is set) the SessionStart,\n" +
			"UserPromptSubmit and PostToolUse hooks that run `kg hook … --agent codex`, and into config.toml the\n" +
			"MCP server [mcp_servers.kg] (running this kg's `kg mcp`, its tools approved) and the trust of\n" +
			"those hooks, which Codex otherwise skips until a person reviews them. Every other setting is kept;\n" +
			"running it again changes nothing; --dry-run prints the changes and writes nothing; --uninstall\n" +
			"removes only what it added, the trust with the hooks.",
		Args: exactArgs(),
	}
	c.Flags().BoolVar(&dryRun, "dry-run", false, "print the changes, write nothing")
	c.Flags().BoolVar(&uninstall, "uninstall", false, "remove kg's hooks, their trust and the MCP server from Codex's settings")
	c.RunE = func(c *cobra.Command, _ []string) error {
		t, err := newInstallTarget(e)
		if err != nil {
			return err
		}
		dir := codexHome(e, t.Home)
		hooksPath := filepath.Join(dir, "hooks.json")
		var trusts, stale []install.CodexTrust
		hooksFile, err := install.JSONPending(hooksPath, func(doc map[string]any) []string {
			stale = install.CodexHookTrusts(doc, hooksPath, t.Owner) // what install wrote before
			if uninstall {
				return install.RemoveAgentHooks(doc, install.CodexHooks, t.Owner)
			}
			changes := install.AddAgentHooks(doc, install.CodexHooks, t.Quoted, string(hookagent.Codex), t.Owner, false)
			trusts = install.CodexHookTrusts(doc, hooksPath, t.Owner)
			return changes
		})
		if err != nil {
			return err
		}
		configFile, note, err := install.CodexConfigPending(filepath.Join(dir, "config.toml"), t, trusts, stale, uninstall)
		if err != nil {
			return err
		}
		var notes []string
		if note != "" {
			notes = append(notes, note)
		}
		return install.ApplyPending(e.stdout, "codex", []*install.PendingFile{hooksFile, configFile}, notes, dryRun, uninstall, "Codex")
	}
	return c
}

// codexHome is Codex's folder: $CODEX_HOME, else ~/.codex.
func codexHome(e env, home string) string {
	if d := e.getenv("CODEX_HOME"); d != "" {
		return d
	}
	return filepath.Join(home, ".codex")
}

func newInstallGeminiCommand(e env) *cobra.Command {
	var dryRun, uninstall bool
	c := &cobra.Command{
		Use:   "gemini [--dry-run|--uninstall]",
		Short: "add kg's hooks and MCP server to Gemini CLI's user settings (or take them out)",
		Long: "Merges into ~/.gemini/settings.json the MCP server \"kg\" (running this kg's `kg mcp`, trusted, so its\n" +
			"tools run without a confirmation) and the SessionStart, BeforeAgent and AfterTool hooks that run\n" +
			"`kg hook … --agent gemini`. Every other setting is kept; running it again changes nothing; --dry-run\n" +
			"prints the changes and writes nothing; --uninstall removes only what it added.",
		Args: exactArgs(),
	}
	c.Flags().BoolVar(&dryRun, "dry-run", false, "print the changes, write nothing")
	c.Flags().BoolVar(&uninstall, "uninstall", false, "remove kg's hooks and MCP server from Gemini CLI's settings")
	c.RunE = func(c *cobra.Command, _ []string) error {
		t, err := newInstallTarget(e)
		if err != nil {
			return err
		}
		var notes []string
		f, err := install.JSONPending(filepath.Join(t.Home, ".gemini", "settings.json"), func(doc map[string]any) []string {
			changes, note := install.EditGeminiMCP(doc, t, uninstall)
			if note != "" {
				notes = append(notes, note)
			}
			if uninstall {
				return append(changes, install.RemoveAgentHooks(doc, install.GeminiHooks, t.Owner)...)
			}
			return append(changes, install.AddAgentHooks(doc, install.GeminiHooks, t.Quoted, string(hookagent.Gemini), t.Owner, true)...)
		})
		if err != nil {
			return err
		}
		return install.ApplyPending(e.stdout, "gemini", []*install.PendingFile{f}, notes, dryRun, uninstall, "Gemini CLI")
	}
	return c
}

func newInstallTarget(e env) (install.Target, error) {
	home, err := e.home()
	if err != nil {
		return install.Target{}, fmt.Errorf("find the home folder: %w", err)
	}
	exe, err := e.executable()
	if err != nil {
		return install.Target{}, fmt.Errorf("find the kg binary the hooks will run: %w", err)
	}
	return install.NewTarget(home, exe), nil
}

// installable are the agents kg install knows, by the program each runs as.
var installable = []struct{ agent, program string }{
	{"claude-code", "claude"},
	{"codex", "codex"},
	{"gemini", "gemini"},
}

// listInstallable is `kg install` alone: each agent it knows, whether its
// program is on PATH, and for one that is, what its install would change
// (its --dry-run).
func listInstallable(c *cobra.Command, e env, args []string) error {
	if len(args) > 0 {
		return wantSubcommand(c, args)
	}
	for _, a := range installable {
		path, err := exec.LookPath(a.program)
		if err != nil {
			fmt.Fprintf(e.stdout, "%s: %s is not on PATH; `kg install %s` sets it up anyway.\n\n", a.agent, a.program, a.agent)
			continue
		}
		fmt.Fprintf(e.stdout, "%s: found %s; `kg install %s` would change:\n", a.agent, path, a.agent)
		sub, _, err := c.Find([]string{a.agent})
		if err != nil || sub == c {
			return fmt.Errorf("kg install %s: %v", a.agent, err)
		}
		if err := sub.Flags().Set("dry-run", "true"); err != nil {
			return err
		}
		if err := sub.RunE(sub, nil); err != nil {
			return fmt.Errorf("kg install %s --dry-run: %w", a.agent, err)
		}
		fmt.Fprintln(e.stdout)
	}
	return nil
}
