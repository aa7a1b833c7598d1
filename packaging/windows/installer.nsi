; TwainMQ Desktop's Windows installer (64-bit, per user: no administrator rights asked).
; Made by scripts/package-windows.sh with makensis (Debian's nsis 3.08), which passes:
;   VERSION   the workspace version, 0.1.0        STAGE    the folder of the files to install
;   VERSION4  the same as four numbers, 0.1.0.0   SIZE_KB  their size, for Add/Remove Programs
;   OUTFILE   the installer to write
; and, for the installer test in `make test` (a debug build, three times the release's size), FAST
; to compress with zlib instead of solid LZMA: 4 times faster, a larger installer.
;
; It installs into %LOCALAPPDATA%\Programs\TwainMQ Desktop (or /D=DIR): the app, twainmq.exe
; (the command-line tool), WebView2Loader.dll (the app loads it) and the icon; a Start-menu
; entry; "Open with TwainMQ Desktop" on folders in Explorer; the app under App Paths (Win+R
; twainmq-desktop); the install folder on the user's own PATH, so that `twainmq` works in a new
; console (an option, on by default: the Components page, or /NOPATH); and an uninstaller listed
; in Add/Remove Programs, which removes all of it, the PATH entry too if this install added it.
; Everything is under HKCU. PATH is edited by userpath.nsh, with no length limit.
; Silent: setup.exe /S [/NOPATH] [/D=C:\path\without\quotes] (the /D= last); uninstall.exe /S.

Unicode true
Target amd64-unicode
ManifestDPIAware true
!ifdef FAST
  SetCompressor zlib
!else
  SetCompressor /SOLID lzma
!endif
RequestExecutionLevel user

!ifndef VERSION | VERSION4 | STAGE | OUTFILE | SIZE_KB
  !error "pass -DVERSION= -DVERSION4= -DSTAGE= -DOUTFILE= -DSIZE_KB= (scripts/package-windows.sh does)"
!endif

!define APP "TwainMQ Desktop"
!define EXE "twainmq-desktop.exe"
!define ID "TwainMQDesktop"
!define UNINSTALL_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\${ID}"
!define APP_PATHS_KEY "Software\Microsoft\Windows\CurrentVersion\App Paths\${EXE}"
!define FOLDER_VERB_KEY "Software\Classes\Directory\shell\${ID}"
; The WebView2 runtime's id in EdgeUpdate's registry (Microsoft's documented way to find it).
!define WEBVIEW2_KEY "Microsoft\EdgeUpdate\Clients\{F3017226-FE2A-4295-8BDF-00C3A9A7E4C5}"

Name "${APP}"
OutFile "${OUTFILE}"
InstallDir "$LOCALAPPDATA\Programs\${APP}"
; Installing again (an update) goes where the last install went, unless /D= says otherwise.
InstallDirRegKey HKCU "${UNINSTALL_KEY}" "InstallLocation"
BrandingText "${APP} ${VERSION}"

VIProductVersion "${VERSION4}"
VIFileVersion "${VERSION4}"
VIAddVersionKey /LANG=1033 "ProductName" "${APP}"
VIAddVersionKey /LANG=1033 "ProductVersion" "${VERSION}"
VIAddVersionKey /LANG=1033 "FileVersion" "${VERSION}"
VIAddVersionKey /LANG=1033 "FileDescription" "${APP} ${VERSION} installer"
VIAddVersionKey /LANG=1033 "CompanyName" "TwainMQ"
VIAddVersionKey /LANG=1033 "LegalCopyright" "MIT License"

!include "MUI2.nsh"
!include "LogicLib.nsh"
!include "Integration.nsh"
!addincludedir "${__FILEDIR__}"
!include "FileFunc.nsh"
!include "userpath.nsh"

!define MUI_ICON "${STAGE}\twainmq-desktop.ico"
!define MUI_UNICON "${STAGE}\twainmq-desktop.ico"
!define MUI_ABORTWARNING
!define MUI_FINISHPAGE_RUN "$INSTDIR\${EXE}"
!define MUI_FINISHPAGE_RUN_TEXT "Start ${APP}"

!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_COMPONENTS
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES
!insertmacro MUI_LANGUAGE "English"

!insertmacro USER_PATH_FUNCTIONS ""
!insertmacro USER_PATH_FUNCTIONS "un."

Section "${APP}" SecApp
  SectionIn RO
  SetShellVarContext current
  ; Installed before in another folder (/D= elsewhere): that install is removed first, by its own
  ; uninstaller run in place (_?=), so no second copy is left behind.
  ReadRegStr $1 HKCU "${UNINSTALL_KEY}" "InstallLocation"
  ${If} $1 != ""
  ${AndIf} $1 != $INSTDIR
  ${AndIf} ${FileExists} "$1\uninstall.exe"
    DetailPrint "Removing the install in $1"
    ExecWait '"$1\uninstall.exe" /S _?=$1'
    Delete "$1\uninstall.exe"
    RMDir "$1"
  ${EndIf}
  SetOutPath "$INSTDIR"
  File "${STAGE}\${EXE}"
  File "${STAGE}\twainmq.exe"
  File "${STAGE}\WebView2Loader.dll"
  File "${STAGE}\twainmq-desktop.ico"
  WriteUninstaller "$INSTDIR\uninstall.exe"

  CreateShortcut "$SMPROGRAMS\${APP}.lnk" "$INSTDIR\${EXE}" "" "$INSTDIR\twainmq-desktop.ico" 0

  ; A store is a folder: Explorer's menu on a folder. Not on a folder's background too ("%V"):
  ; there a drive's root comes as "D:\", whose \" a program's argument parsing reads as a quote.
  WriteRegStr HKCU "${FOLDER_VERB_KEY}" "" "Open with ${APP}"
  WriteRegStr HKCU "${FOLDER_VERB_KEY}" "Icon" "$INSTDIR\twainmq-desktop.ico"
  WriteRegStr HKCU "${FOLDER_VERB_KEY}\command" "" '"$INSTDIR\${EXE}" "%1"'
  ${NotifyShell_AssocChanged}

  WriteRegStr HKCU "${APP_PATHS_KEY}" "" "$INSTDIR\${EXE}"

  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayName" "${APP}"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "Publisher" "TwainMQ"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayIcon" "$INSTDIR\twainmq-desktop.ico"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "UninstallString" '"$INSTDIR\uninstall.exe"'
  WriteRegStr HKCU "${UNINSTALL_KEY}" "QuietUninstallString" '"$INSTDIR\uninstall.exe" /S'
  WriteRegDWORD HKCU "${UNINSTALL_KEY}" "EstimatedSize" ${SIZE_KB}
  WriteRegDWORD HKCU "${UNINSTALL_KEY}" "NoModify" 1
  WriteRegDWORD HKCU "${UNINSTALL_KEY}" "NoRepair" 1

  ; The app's window is a WebView2: part of Windows 11 and of an up-to-date Windows 10, but not
  ; of every Windows. The installer cannot bring it (it would download it), so it says where.
  ${IfNot} ${Silent}
    ClearErrors
    ReadRegStr $0 HKLM "SOFTWARE\WOW6432Node\${WEBVIEW2_KEY}" "pv"
    ${If} $0 == ""
    ${OrIf} $0 == "0.0.0.0"
      ReadRegStr $0 HKCU "Software\${WEBVIEW2_KEY}" "pv"
    ${EndIf}
    ${If} $0 == ""
    ${OrIf} $0 == "0.0.0.0"
      ${If} ${Cmd} `MessageBox MB_YESNO|MB_ICONEXCLAMATION "${APP} needs the Microsoft Edge WebView2 Runtime, which this computer does not seem to have.$\r$\n$\r$\nOpen its download page?" IDYES`
        ExecShell "open" "https://developer.microsoft.com/microsoft-edge/webview2/"
      ${EndIf}
    ${EndIf}
  ${EndIf}
SectionEnd

; After SecApp: an install moved from another folder has had that folder's entry taken out by its
; uninstaller first. The uninstall key records whether this install added the entry, so that the
; uninstaller takes out only what was put in (a folder the user had on PATH already stays).
Section "Add the twainmq command to PATH (for this user)" SecPath
  Push $INSTDIR
  Call UserPathAdd
  Pop $0
  ${If} $0 == "added"
    WriteRegDWORD HKCU "${UNINSTALL_KEY}" "AddedToPath" 1
    DetailPrint "Added $INSTDIR to your PATH: twainmq works in consoles opened from now on"
  ${ElseIf} $0 == "present"
    DetailPrint "$INSTDIR is on your PATH already"
  ${Else}
    DetailPrint "PATH not changed: $0"
    ${IfNot} ${Silent}
      MessageBox MB_OK|MB_ICONEXCLAMATION "${APP} is installed, but $INSTDIR could not be added to your PATH ($0).$\r$\n$\r$\nRun twainmq from $INSTDIR, or add that folder to PATH yourself."
    ${EndIf}
  ${EndIf}
SectionEnd

LangString DESC_SecApp ${LANG_ENGLISH} "The app, the twainmq command, a Start-menu entry and $\"Open with ${APP}$\" on folders."
LangString DESC_SecPath ${LANG_ENGLISH} "Put the install folder on your own PATH, so that typing twainmq in a new console runs it. The uninstaller takes it out again."
!insertmacro MUI_FUNCTION_DESCRIPTION_BEGIN
  !insertmacro MUI_DESCRIPTION_TEXT ${SecApp} $(DESC_SecApp)
  !insertmacro MUI_DESCRIPTION_TEXT ${SecPath} $(DESC_SecPath)
!insertmacro MUI_FUNCTION_DESCRIPTION_END

Function .onInit
  ${GetParameters} $0
  ClearErrors
  ${GetOptions} $0 "/NOPATH" $1
  ${IfNot} ${Errors}
    SectionSetFlags ${SecPath} 0
  ${EndIf}
FunctionEnd

; Installed again in the same folder without the option: the entry an earlier install added goes.
Function .onInstSuccess
  ${IfNot} ${SectionIsSelected} ${SecPath}
    ReadRegDWORD $0 HKCU "${UNINSTALL_KEY}" "AddedToPath"
    ${If} $0 = 1
      Push $INSTDIR
      Call UserPathRemove
      Pop $0
      DeleteRegValue HKCU "${UNINSTALL_KEY}" "AddedToPath"
    ${EndIf}
  ${EndIf}
FunctionEnd

Section "Uninstall"
  SetShellVarContext current
  ; Each file by name, and the folder only if nothing else is left in it: a /D= pointing at a
  ; folder of other things must not lose them.
  Delete "$INSTDIR\${EXE}"
  Delete "$INSTDIR\twainmq.exe"
  Delete "$INSTDIR\WebView2Loader.dll"
  Delete "$INSTDIR\twainmq-desktop.ico"
  Delete "$INSTDIR\uninstall.exe"
  RMDir "$INSTDIR"

  Delete "$SMPROGRAMS\${APP}.lnk"

  DeleteRegKey HKCU "${FOLDER_VERB_KEY}"
  ; Their parents too, if that left them empty (then this install had made them).
  DeleteRegKey /ifempty HKCU "Software\Classes\Directory\shell"
  DeleteRegKey /ifempty HKCU "Software\Classes\Directory"
  ${NotifyShell_AssocChanged}
  DeleteRegKey HKCU "${APP_PATHS_KEY}"
  ReadRegDWORD $0 HKCU "${UNINSTALL_KEY}" "AddedToPath"
  ${If} $0 = 1
    Push $INSTDIR
    Call un.UserPathRemove
    Pop $0
  ${EndIf}
  DeleteRegKey HKCU "${UNINSTALL_KEY}"
  ; Each user's recent stores, demo store and index cache (%APPDATA%, %LOCALAPPDATA%) are theirs
  ; and stay, as the Debian package leaves ~/.config and ~/.local/share.
SectionEnd
