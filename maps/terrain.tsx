<?xml version="1.0" encoding="UTF-8"?>
<tileset version="1.10" tiledversion="1.10.2" name="terrain" tilewidth="16" tileheight="16" tilecount="7" columns="7">
 <image source="terrain.png" width="112" height="16"/>
 <tile id="0" type="water">
  <properties>
   <property name="terrain" value="water"/>
  </properties>
 </tile>
 <tile id="1" type="sand">
  <properties>
   <property name="terrain" value="sand"/>
  </properties>
 </tile>
 <tile id="2" type="grass">
  <properties>
   <property name="terrain" value="grass"/>
  </properties>
 </tile>
 <tile id="3" type="forest">
  <properties>
   <property name="terrain" value="forest"/>
  </properties>
 </tile>
 <tile id="4" type="swamp">
  <properties>
   <property name="terrain" value="swamp"/>
  </properties>
 </tile>
 <tile id="5" type="mountain">
  <properties>
   <property name="terrain" value="mountain"/>
  </properties>
 </tile>
 <tile id="6" type="rock">
  <properties>
   <property name="terrain" value="rock"/>
  </properties>
 </tile>
</tileset>
