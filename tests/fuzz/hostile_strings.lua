-- The hostile-string corpus: text that a shell, gnuplot, printf, a TSV
-- reader or a path join would interpret.  Returns a function of the canary
-- path (a file that must never come to exist): the strings that try to
-- create it name it.  Used by plot_strings.lua and paths.lua; add every
-- string that ever got through as a regression input.
return function(canary)
  local touch = "touch " .. canary
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
    string.rep("long", 2500),
  }
end
