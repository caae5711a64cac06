# cmake -DINPUT=file.lua -DOUTPUT=file.c -DSYMBOL=name -P embed.cmake
# Writes the file's bytes as a C array `SYMBOL` and its length `SYMBOL_size`
# (without the terminating zero), so that the host is self-contained.
file(READ ${INPUT} hex HEX)
string(LENGTH "${hex}" hex_length)
math(EXPR size "${hex_length} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
file(WRITE ${OUTPUT}
  "/* generated from ${INPUT}; do not edit */\n"
  "const char ${SYMBOL}[] = {${bytes} 0};\n"
  "const unsigned long ${SYMBOL}_size = ${size};\n")
