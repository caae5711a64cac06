-- The hostile-string corpus: text that a shell, gnuplot, printf, a TSV
-- reader or a path join would interpret.  Returns a function of the canary
-- path (a file that must never come to exist): the strings that try to
-- create it name it.  Used by plot_strings.lua and paths.lua; add every
-- string that ever got through as a regression input.
return function(canary)
  local touch = "touch " .. canary
  -- the command as a C array of its bytes: C code that needs no quote
  local bytes = {}
  for i = 1, #touch do bytes[i] = touch:byte(i) end
  local c_command = "system((const char[]){" .. table.concat(bytes, ",") .. ",0});"
  return {
    "",
    " ",
    "plain title",
    "`" .. touch .. "`",
    "x`" .. touch .. "`y",
    "$(" .. touch .. ")",
    "x\n!" .. touch,
    "x\nsystem('" .. touch .. "')",
    "x\r\nsystem(\"" .. touch .. "\")",
    "x\\\nsystem('" .. touch .. "')",
    "'; system('" .. touch .. "'); '",
    "\"; system(\"" .. touch .. "\"); \"",
    "x\"\nset output '" .. canary .. "'\nplot x\n",
    "| " .. touch,
    "< " .. touch,
    "; " .. touch,
    "@macro",
    "@@ @1 @ARG1",
    "Newton's method",
    "say \"hi\"",
    "\\",
    "x\\",
    "\\\"",
    "\\n\\t\\101\\0551",
    "%s%s%n%d%L%%",
    "#not a comment",
    "J_1^{2} {/Symbol a} &{x} ~a{.8-}",
    "2^{-1/2}",
    "nul\0byte",
    "\1\2\3\27[31mred\27[0m\127",
    "tab\there",
    "\255\254 not utf-8",
    "Δt ≤ 10⁻³, ∂H/∂p",
    "..",
    ".",
    "-",
    "--help",
    "a/b/../c",
    -- C source (wb.compile_model, issue 25): a trigraph ??/ that turns an
    -- escaped quote into an ending one, then a constructor, in the
    -- parameter table and in the model's descriptor
    "??/\"}}; __attribute__((constructor)) static void wb_hostile_p(void) { " .. c_command
      .. " } static const wb_param_spec wb_rest[] = {{0}, //",
    "??/\"}; __attribute__((constructor)) static void wb_hostile_m(void) { " .. c_command
      .. " } static const wb_model_class wb_rest = { .doc = 0, //",
    "really??! (??) ??( ??) ??< ??> ??= ??' ??- ??/",
    "*/ /* // \\",
    "cr\rhere\r",
    "\"\n#include \"/etc/passwd\"\n\"",
    string.rep("long", 2500),
  }
end
