; The user's own PATH (HKCU\Environment, value Path), edited with no length limit.
;
; This makensis holds at most 1024 characters in a string (NSIS_MAX_STRLEN), and a PATH is often
; longer: read into an NSIS string it would be cut, and written back cut. So the value is read into
; a buffer of its own size (System plugin) and edited there, one entry at a time; only an entry
; (a folder, under 1024 characters) ever goes through an NSIS string.
;
; Entries are compared as Windows compares folders: case-insensitively, with or without a trailing
; backslash, quoted or not. The value keeps its type (REG_EXPAND_SZ, which %VAR% entries need,
; or REG_SZ); a new value is REG_EXPAND_SZ, as Windows makes it. Running programs learn of the
; change from WM_SETTINGCHANGE "Environment" (Explorer starts new consoles with the new PATH).
;
;   !insertmacro USER_PATH_FUNCTIONS ""     defines UserPathAdd and UserPathRemove
;   !insertmacro USER_PATH_FUNCTIONS "un."  defines un.UserPathRemove, for the uninstaller
;
;   Push "C:\folder"
;   Call UserPathAdd      ; then Pop: "added", "present" (it was there already) or "error: ..."
;   Push "C:\folder"
;   Call UserPathRemove   ; then Pop: "removed", "absent" or "error: ..."

!include "LogicLib.nsh"
!include "Util.nsh"

; HKEY_CURRENT_USER is (HKEY)(LONG)0x80000001: a 64-bit handle sign-extended from 32 bits.
!define USER_PATH_HKCU -2147483647
; RegGetValueW flags: RRF_RT_REG_SZ | RRF_RT_REG_EXPAND_SZ | RRF_NOEXPAND (%VAR% kept as written).
!define USER_PATH_RRF 0x10000006

!macro USER_PATH_FUNCTIONS UN

; In: $0 = the folder. Out: $1 = the value in a new buffer (System::Free it), with room for $0 and
; a separator more; $2 = its type (REG_EXPAND_SZ = 2 for a user with no Path yet); $3 = "" or the
; error. Uses $4-$5.
Function ${UN}_UserPathRead
  StrCpy $3 ""
  StrCpy $2 0
  StrCpy $4 0
  System::Call 'advapi32::RegGetValueW(p ${USER_PATH_HKCU}, w "Environment", w "Path", i ${USER_PATH_RRF}, *i .r2, p 0, *i r4r4) i .r5'
  ${If} $5 = 2 ; ERROR_FILE_NOT_FOUND: this user has no Path of their own yet
    StrCpy $2 2
    StrCpy $4 0
  ${ElseIf} $5 <> 0
    StrCpy $3 "error: could not read the user's PATH (error $5)"
    StrCpy $1 0
    Return
  ${EndIf}
  StrLen $5 $0
  IntOp $5 $5 + 2
  IntOp $5 $5 * 2
  IntOp $5 $5 + $4
  ; GPTR: zeroed, so a value of no bytes reads as an empty string.
  System::Alloc $5
  Pop $1
  ${If} $1 = 0
    StrCpy $3 "error: out of memory reading the user's PATH"
    Return
  ${EndIf}
  ${If} $4 > 0
    System::Call 'advapi32::RegGetValueW(p ${USER_PATH_HKCU}, w "Environment", w "Path", i ${USER_PATH_RRF}, p 0, p r1, *i r4) i .r5'
    ${If} $5 <> 0
      ; (ERROR_MORE_DATA: another program lengthened it between the two reads.)
      StrCpy $3 "error: could not read the user's PATH (error $5); try again"
      System::Free $1
      StrCpy $1 0
    ${EndIf}
  ${EndIf}
FunctionEnd

; In: $0 = the folder, $6 = the entry's first character, $7 = its length. Out: $8 = 1 when the
; entry names the folder, else 0. Uses $9.
Function ${UN}_UserPathEntryIs
  StrCpy $8 0
  ${If} $7 > 0
  ${AndIf} $7 < ${NSIS_MAX_STRLEN}
    IntOp $9 $7 + 1
    System::Call 'kernel32::lstrcpynW(w .r9, p r6, i r9)'
    ; Quoted ("C:\x"): the quotes go. A trailing backslash goes. StrCmp ignores case.
    StrCpy $8 $9 1
    ${If} $8 == '"'
      StrCpy $9 $9 "" 1
      StrCpy $8 $9 1 -1
      ${If} $8 == '"'
        StrCpy $9 $9 -1
      ${EndIf}
    ${EndIf}
    StrCpy $8 $9 1 -1
    ${If} $8 == "\"
      StrCpy $9 $9 -1
    ${EndIf}
    StrCpy $8 0
    ${If} $9 == $0
      StrCpy $8 1
    ${EndIf}
  ${EndIf}
FunctionEnd

; In: $1 = the buffer, $6 = where to start. Out: $6 = the first entry naming $0 from there, or 0;
; $7 = its length; $R0 = the separator after it, or 0 when it is the last. Uses $8-$9.
Function ${UN}_UserPathFind
  ${Do}
    System::Call 'shlwapi::StrChrW(p r6, i 59) p .R0'
    ${If} $R0 = 0
      System::Call 'kernel32::lstrlenW(p r6) i .r7'
    ${Else}
      IntPtrOp $7 $R0 - $6
      IntOp $7 $7 / 2
    ${EndIf}
    Call ${UN}_UserPathEntryIs
    ${If} $8 = 1
      Return
    ${EndIf}
    ${If} $R0 = 0
      StrCpy $6 0
      Return
    ${EndIf}
    IntPtrOp $6 $R0 + 2
  ${Loop}
FunctionEnd

; In: $1 = the buffer, $2 = its type. Out: $3 = "" or the error. Uses $4-$5.
; A value left empty goes: a user with no Path of their own and one with an empty Path are the
; same to Windows, and the install that made it leaves nothing behind.
Function ${UN}_UserPathWrite
  System::Call 'kernel32::lstrlenW(p r1) i .r4'
  ${If} $4 = 0
    System::Call 'advapi32::RegDeleteKeyValueW(p ${USER_PATH_HKCU}, w "Environment", w "Path") i .r5'
  ${Else}
    IntOp $4 $4 + 1
    IntOp $4 $4 * 2
    System::Call 'advapi32::RegSetKeyValueW(p ${USER_PATH_HKCU}, w "Environment", w "Path", i r2, p r1, i r4) i .r5'
  ${EndIf}
  ${If} $5 <> 0
    StrCpy $3 "error: could not write the user's PATH (error $5)"
    Return
  ${EndIf}
  ; HWND_BROADCAST, WM_SETTINGCHANGE; SMTO_ABORTIFHUNG, 5 s at most per window.
  System::Call 'user32::SendMessageTimeoutW(p 0xffff, i 0x1A, p 0, w "Environment", i 2, i 5000, *p .r5)'
FunctionEnd

!if "${UN}" == ""
Function UserPathAdd
  Exch $0
  Push $1
  Push $2
  Push $3
  Push $4
  Push $5
  Push $6
  Push $7
  Push $8
  Push $9
  Push $R0
  Call ${UN}_UserPathRead
  ${If} $3 == ""
    StrCpy $6 $1
    Call ${UN}_UserPathFind
    ${If} $6 <> 0
      StrCpy $3 "present"
    ${Else}
      ; A separator first, unless the value is empty or already ends with one.
      System::Call 'kernel32::lstrlenW(p r1) i .r4'
      ${If} $4 > 0
        IntOp $4 $4 - 1
        IntOp $4 $4 * 2
        IntPtrOp $4 $1 + $4
        System::Call '*$4(&i2 .r5)'
        ${If} $5 <> 59
          System::Call 'kernel32::lstrcatW(p r1, w ";")'
        ${EndIf}
      ${EndIf}
      System::Call 'kernel32::lstrcatW(p r1, w r0)'
      Call ${UN}_UserPathWrite
      ${If} $3 == ""
        StrCpy $3 "added"
      ${EndIf}
    ${EndIf}
  ${EndIf}
  ${If} $1 <> 0
    System::Free $1
  ${EndIf}
  StrCpy $0 $3
  Pop $R0
  Pop $9
  Pop $8
  Pop $7
  Pop $6
  Pop $5
  Pop $4
  Pop $3
  Pop $2
  Pop $1
  Exch $0
FunctionEnd
!endif

Function ${UN}UserPathRemove
  Exch $0
  Push $1
  Push $2
  Push $3
  Push $4
  Push $5
  Push $6
  Push $7
  Push $8
  Push $9
  Push $R0
  Call ${UN}_UserPathRead
  ${If} $3 == ""
    StrCpy $3 "absent"
    StrCpy $6 $1
    ${Do}
      Call ${UN}_UserPathFind
      ${If} $6 = 0
        ${Break}
      ${EndIf}
      StrCpy $3 "removed"
      ${If} $R0 <> 0
        ; Not the last entry: it and the separator after it go (the rest moves up to $6).
        IntPtrOp $4 $R0 + 2
        System::Call 'kernel32::lstrlenW(p r4) i .r5'
        IntOp $5 $5 + 1
        IntOp $5 $5 * 2
        System::Call 'kernel32::RtlMoveMemory(p r6, p r4, p r5)'
      ${ElseIf} $6 <> $1
        ; The last entry: the separator before it and it go.
        IntPtrOp $4 $6 - 2
        System::Call '*$4(&i2 0)'
        ${Break}
      ${Else}
        ; The only entry.
        System::Call '*$6(&i2 0)'
        ${Break}
      ${EndIf}
    ${Loop}
    ${If} $3 == "removed"
      Call ${UN}_UserPathWrite
      ${If} $3 == ""
        StrCpy $3 "removed"
      ${EndIf}
    ${EndIf}
  ${EndIf}
  ${If} $1 <> 0
    System::Free $1
  ${EndIf}
  StrCpy $0 $3
  Pop $R0
  Pop $9
  Pop $8
  Pop $7
  Pop $6
  Pop $5
  Pop $4
  Pop $3
  Pop $2
  Pop $1
  Exch $0
FunctionEnd

!macroend
