# Writes OUT, a C file holding the text of IN as `const char NAME[]`.
# Run with: cmake -DIN=file -DOUT=file.c -DNAME=symbol -P embed_text.cmake
file(READ ${IN} hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
file(WRITE ${OUT}.tmp "/* Generated from ${IN} by probes/embed_text.cmake. Do not edit. */\nconst char ${NAME}[] = {${bytes}0x00};\n")
file(RENAME ${OUT}.tmp ${OUT})
