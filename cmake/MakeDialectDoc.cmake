# cmake -DOUT=... -DPARTS=a;b -P MakeDialectDoc.cmake
file(WRITE ${OUT} "<!-- Generated from dialects/comm/*.td by `ninja hccl-dialect-doc`; do not edit. -->\n\n")
foreach(part ${PARTS})
  file(READ ${part} text)
  file(APPEND ${OUT} "${text}\n")
endforeach()
