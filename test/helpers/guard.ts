/** A Claude Code PreToolUse hook's input for an Edit of `file`, from `cwd`. */
export const editHook = (file: string, cwd: string): string =>
  JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Edit', cwd, tool_input: { file_path: file, old_string: 'a', new_string: 'b' } });
